package s3target

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/fencecheck/fencecheck/histories"
)

// epochKeys gives each token an object of its own,
// <resource>/<20-digit token>, created with If-None-Match: *, so that no
// write ever replaces another: the current value is the highest key's.
// A write lists the resource's keys first and refuses a token that does
// not pass the highest; a key below the highest, created by a write
// whose list was older (the harness's window sits between the list and
// the PUT), is never what a read returns, and that write overlapped the
// newer one, so it may be ordered before it. A 412 means the key exists:
// the same token was written already, a repeat, which the strict policy
// rejects and accept-equal overwrites (If-Match on that key's ETag).
func (t *Target) epochKeys(ctx context.Context, resource string, token uint64, value string) (histories.Outcome, error) {
	dir := t.key(resource) + "/"
	key := epochKey(dir, token)
	for attempt := 1; attempt <= attempts; attempt++ {
		top, found, err := t.top(ctx, resource, dir)
		if err != nil {
			return 0, notApplied(err)
		}
		if found && !t.passes(token, top) {
			return histories.Rejected, nil
		}
		if attempt == 1 {
			t.openWindow(ctx, resource, token)
		}
		c := condition{ifNoneMatch: true}
		if found && top == token {
			obj, err := t.get(ctx, key) // accept-equal: the repeat replaces the key's value
			if err != nil {
				return 0, notApplied(err)
			}
			c = condition{ifMatch: obj.etag, ifNoneMatch: !obj.found}
		}
		err = t.put(ctx, key, encode(token, value), c)
		switch {
		case err == nil:
			t.saw(resource, token)
			return histories.Accepted, nil
		case isPrecondition(err) && c.ifNoneMatch && !t.acceptEqual:
			t.saw(resource, token)
			return histories.Rejected, nil // the token's key exists: a repeat
		case isPrecondition(err), isConflict(err):
			continue
		}
		return 0, classify(err)
	}
	return 0, refused(key)
}

// top returns the highest token with a key under dir, listing only the
// keys from the highest known one on.
func (t *Target) top(ctx context.Context, resource, dir string) (uint64, bool, error) {
	t.mu.Lock()
	known, found := t.highest[resource]
	t.mu.Unlock()
	in := &s3.ListObjectsV2Input{Bucket: &t.bucket, Prefix: aws.String(dir)}
	if found {
		in.StartAfter = aws.String(epochKey(dir, known))
	}
	top := known
	for p := s3.NewListObjectsV2Paginator(t.client, in); p.HasMorePages(); {
		page, err := p.NextPage(ctx)
		if err != nil {
			return 0, false, fmt.Errorf("list object keys %s*: %w", dir, err)
		}
		if n := len(page.Contents); n > 0 {
			last := aws.ToString(page.Contents[n-1].Key)
			tok, err := parseToken(last[min(len(dir), len(last)):])
			if err != nil {
				return 0, false, fmt.Errorf("object key %s is not an epoch key: %w", last, err)
			}
			if !found || tok > top {
				top, found = tok, true
			}
		}
	}
	if found {
		t.saw(resource, top)
	}
	return top, found, nil
}

// saw records that token's key exists under resource.
func (t *Target) saw(resource string, token uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if cur, ok := t.highest[resource]; !ok || token > cur {
		t.highest[resource] = token
	}
}
