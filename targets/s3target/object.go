package s3target

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// maxObject bounds what a read takes of an object: the layout's token
// line and a value of the workloads' size, with room to spare.
const maxObject = 1 << 20

// object is what a GET of one key found.
type object struct {
	found bool
	token uint64
	value string
	etag  string
}

// get reads key with its ETag, and decodes the layout.
func (t *Target) get(ctx context.Context, key string) (object, error) {
	out, err := t.client.GetObject(ctx, &s3.GetObjectInput{Bucket: &t.bucket, Key: &key})
	if isNotFound(err) {
		return object{}, nil
	}
	if err != nil {
		return object{}, fmt.Errorf("get object key %s: %w", key, err)
	}
	defer out.Body.Close()
	b, err := io.ReadAll(io.LimitReader(out.Body, maxObject+1))
	if err != nil {
		return object{}, fmt.Errorf("get object key %s: %w", key, err)
	}
	if len(b) > maxObject {
		return object{}, fmt.Errorf("object key %s is over %d bytes: not fencecheck's layout", key, maxObject)
	}
	o := object{found: true, etag: aws.ToString(out.ETag)}
	if o.token, o.value, err = decode(string(b)); err != nil {
		return object{}, fmt.Errorf("object key %s, ETag %s: %w", key, o.etag, err)
	}
	return o, nil
}

// head reads key's ETag alone.
func (t *Target) head(ctx context.Context, key string) (etag string, found bool, err error) {
	out, err := t.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &t.bucket, Key: &key})
	if isNotFound(err) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("head object key %s: %w", key, err)
	}
	return aws.ToString(out.ETag), true, nil
}

// condition is a PUT's precondition: If-Match an ETag, If-None-Match: *
// (the key must not exist), or none.
type condition struct {
	ifMatch     string
	ifNoneMatch bool
}

// describe names the condition for an error.
func (c condition) describe() string {
	switch {
	case c.ifMatch != "":
		return "If-Match: " + c.ifMatch
	case c.ifNoneMatch:
		return "If-None-Match: *"
	}
	return "no condition"
}

// put writes content at key under c.
func (t *Target) put(ctx context.Context, key, content string, c condition) error {
	in := &s3.PutObjectInput{Bucket: &t.bucket, Key: &key, Body: strings.NewReader(content),
		ContentLength: aws.Int64(int64(len(content))), ContentType: aws.String("text/plain")}
	if c.ifMatch != "" {
		in.IfMatch = aws.String(c.ifMatch)
	}
	if c.ifNoneMatch {
		in.IfNoneMatch = aws.String("*")
	}
	out, err := t.client.PutObject(ctx, in)
	etag := ""
	if err == nil {
		etag = aws.ToString(out.ETag)
	}
	t.logPut(key, content, c, etag, err)
	if err != nil {
		return fmt.Errorf("put object key %s (%s): %w", key, c.describe(), err)
	}
	return nil
}

// passes says whether token may replace stored under the policy.
func (t *Target) passes(token, stored uint64) bool {
	return token > stored || (token == stored && t.acceptEqual)
}
