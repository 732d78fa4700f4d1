package redistarget

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"

	"github.com/fencecheck/fencecheck/histories"
)

// getter is what reads the stored token: the client, or a WATCH
// transaction's connection.
type getter interface {
	HGet(ctx context.Context, key, field string) *redis.StringCmd
}

// checkThenSet is the article's hazard, as a service would write it
// against Redis: HGET the stored token, compare in Go, then HSET the value
// and the token in a separate command. Nothing holds the key between the
// two, so a newer write can land in between and be overwritten by this
// older one. The harness's window (SetWindow) runs between the comparison
// and the HSET; there the delay fault holds a write until a newer token
// has been accepted.
func (t *Target) checkThenSet(ctx context.Context, resource string, token uint64, value string) (histories.Outcome, error) {
	key := t.key(resource)
	ok, err := t.passes(ctx, t.client, key, token)
	if err != nil {
		return 0, notApplied(err)
	}
	if !ok {
		return histories.Rejected, nil
	}
	t.openWindow(ctx, resource, token)
	if err := t.client.HSet(ctx, key, fieldValue, value, fieldToken, strconv.FormatUint(token, 10)).Err(); err != nil {
		return 0, fmt.Errorf("set: %w", classify(err))
	}
	return histories.Accepted, nil
}

// passes reads the stored token and says whether token may replace it
// under the target's policy. After its error, the write has not been
// sent.
func (t *Target) passes(ctx context.Context, g getter, key string, token uint64) (bool, error) {
	s, err := g.HGet(ctx, key, fieldToken).Result()
	if errors.Is(err, redis.Nil) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("check: %w", err)
	}
	stored, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return false, fmt.Errorf("check: the stored token %q is not a token: %w", s, err)
	}
	return token > stored || (token == stored && t.acceptEqual), nil
}

// openWindow runs the harness's window, when it set one.
func (t *Target) openWindow(ctx context.Context, resource string, token uint64) {
	if t.window != nil {
		t.window(ctx, resource, token)
	}
}
