package redistarget

import (
	"context"
	"fmt"
)

// unlinkBatch is how many keys one UNLINK removes.
const unlinkBatch = 100

// Teardown implements targets.Teardowner: it removes every key of the
// run, found by SCAN MATCH <prefix>*, with UNLINK. The prefix holds 12
// random hex digits, so no other client's key matches. A user's script
// that writes keys of its own must name them after KEYS[1] (KEYS[1]
// .. ':…') for them to be removed too. The error names the prefix left
// behind and how to remove it.
func (t *Target) Teardown(ctx context.Context) error {
	iter := t.client.Scan(ctx, 0, t.prefix+"*", unlinkBatch).Iterator()
	var batch []string
	for iter.Next(ctx) {
		batch = append(batch, iter.Val())
		if len(batch) == unlinkBatch {
			if err := t.client.Unlink(ctx, batch...).Err(); err != nil {
				return t.leftBehind(err)
			}
			batch = batch[:0]
		}
	}
	if err := iter.Err(); err != nil {
		return t.leftBehind(err)
	}
	if len(batch) > 0 {
		if err := t.client.Unlink(ctx, batch...).Err(); err != nil {
			return t.leftBehind(err)
		}
	}
	return nil
}

// leftBehind says what a failed tear-down left on the server and how to
// remove it.
func (t *Target) leftBehind(err error) error {
	return t.wrap(fmt.Sprintf("keys %s* were left behind (remove them with: redis-cli --scan --pattern '%s*' | xargs redis-cli unlink); tear down", t.prefix, t.prefix), err)
}
