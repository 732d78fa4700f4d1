package natstarget

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
)

// Teardown implements targets.Teardowner: it deletes the run's bucket,
// and nothing else. The error names the bucket left behind and how to
// remove it.
func (t *Target) Teardown(ctx context.Context) error {
	if t.kv == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	err := t.js.DeleteKeyValue(ctx, t.bucket)
	if err != nil && !errors.Is(err, jetstream.ErrBucketNotFound) {
		return t.wrap(fmt.Sprintf("the bucket %s was left behind (remove it with: nats kv del -f %s); tear down", t.bucket, t.bucket), err)
	}
	return nil
}
