package s3target

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// deleteBatch is how many keys one DeleteObjects removes (S3's limit).
const deleteBatch = 1000

// findBucket asks the store for the bucket (HeadBucket): an answer
// proves the store is reached and signs are accepted, or refused (403)
// before the run. A bucket that does not exist is the run's own to
// create in Setup and to remove in Teardown.
func (t *Target) findBucket(ctx context.Context) error {
	_, err := t.client.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: &t.bucket})
	switch {
	case err == nil:
		return nil
	case isNotFound(err):
		t.ownBucket = true
		return nil
	}
	return fmt.Errorf("head bucket %s: %w", t.bucket, err)
}

// Setup implements targets.Setupper: it creates the bucket when the
// store has none of the spec's name (or the spec names none).
func (t *Target) Setup(ctx context.Context) error {
	if !t.ownBucket || t.created {
		return nil
	}
	in := &s3.CreateBucketInput{Bucket: &t.bucket}
	if t.region != defaultRegion {
		// AWS creates a bucket in us-east-1 unless told otherwise.
		in.CreateBucketConfiguration = &types.CreateBucketConfiguration{LocationConstraint: types.BucketLocationConstraint(t.region)}
	}
	_, err := t.client.CreateBucket(ctx, in)
	var owned *types.BucketAlreadyOwnedByYou
	if err != nil && !errors.As(err, &owned) {
		return t.wrap("set up", fmt.Errorf("create bucket %s: %w", t.bucket, err))
	}
	t.created = err == nil
	return nil
}

// Teardown implements targets.Teardowner: it removes every object under
// the run's prefix (listed, then DeleteObjects in batches), and the
// bucket when Setup created it. The prefix holds 12 random hex digits,
// so no other client's object is listed. The error names what was left
// behind and how to remove it.
func (t *Target) Teardown(ctx context.Context) error {
	if t.ownBucket && !t.created {
		return nil
	}
	p := s3.NewListObjectsV2Paginator(t.client, &s3.ListObjectsV2Input{Bucket: &t.bucket, Prefix: aws.String(t.prefix), MaxKeys: aws.Int32(deleteBatch)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return t.leftBehind(err)
		}
		if len(page.Contents) == 0 {
			continue
		}
		ids := make([]types.ObjectIdentifier, len(page.Contents))
		for i, o := range page.Contents {
			ids[i] = types.ObjectIdentifier{Key: o.Key}
		}
		out, err := t.client.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: &t.bucket, Delete: &types.Delete{Objects: ids, Quiet: aws.Bool(true)}})
		if err != nil {
			return t.leftBehind(err)
		}
		if len(out.Errors) > 0 {
			e := out.Errors[0]
			return t.leftBehind(fmt.Errorf("delete object key %s: %s %s (and %d more)", aws.ToString(e.Key), aws.ToString(e.Code), aws.ToString(e.Message), len(out.Errors)-1))
		}
	}
	if t.created {
		if _, err := t.client.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: &t.bucket}); err != nil {
			return t.wrap(fmt.Sprintf("bucket %s was left behind, empty of the run's objects (remove it with: aws s3 rb s3://%s); tear down", t.bucket, t.bucket), err)
		}
		t.created = false
	}
	return nil
}

// leftBehind says what a failed tear-down left in the store and how to
// remove it.
func (t *Target) leftBehind(err error) error {
	what := fmt.Sprintf("objects %s/%s* were left behind (remove them with: aws s3 rm --recursive s3://%s/%s)", t.bucket, t.prefix, t.bucket, t.prefix)
	if t.created {
		what += fmt.Sprintf(" in the bucket %s, the run's own", t.bucket)
	}
	return t.wrap(what+"; tear down", err)
}
