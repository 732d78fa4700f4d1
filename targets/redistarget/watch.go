package redistarget

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"

	"github.com/fencecheck/fencecheck/histories"
)

// watchAttempts bounds how often a watch write tries again after its EXEC
// was discarded.
const watchAttempts = 16

// watch is check-then-set made optimistic, as the Redis documentation
// teaches it: WATCH the key, HGET the stored token, compare in Go, then
// HSET inside MULTI/EXEC. When the key changed after the WATCH, Redis
// discards the transaction and EXEC answers nil; the write then starts
// again from the WATCH, as an application does, and is decided against
// what is stored now. The harness's window runs between the comparison
// and MULTI on the first attempt: a write held there until a newer token
// was accepted finds its EXEC discarded, and its second attempt rejects
// it.
//
// An EXEC answered nil applied nothing. It is no rejection: the write
// that changed the key may carry a lower token than this one (it passed
// its own check against an older token), and a fenced register must
// accept this one after it, so recording "rejected" would blame the
// receiver for refusing a token above the stored one. Hence the retry,
// and when every attempt was discarded, the write is recorded as
// definitely not applied (fail), the same as a serialization failure:
// the server said it did nothing.
func (t *Target) watch(ctx context.Context, resource string, token uint64, value string) (histories.Outcome, error) {
	for attempt := 1; attempt <= watchAttempts; attempt++ {
		out, err := t.watchOnce(ctx, resource, token, value, attempt == 1)
		if !errors.Is(err, redis.TxFailedErr) {
			return out, err
		}
	}
	return 0, notApplied(fmt.Errorf("EXEC discarded %d times: the key changed between each read and its write", watchAttempts))
}

// watchOnce is one WATCH … EXEC. It returns redis.TxFailedErr when EXEC
// was discarded.
func (t *Target) watchOnce(ctx context.Context, resource string, token uint64, value string, window bool) (histories.Outcome, error) {
	key := t.key(resource)
	out := histories.Rejected
	sent := false
	err := t.client.Watch(ctx, func(tx *redis.Tx) error {
		ok, err := t.passes(ctx, tx, key, token)
		if err != nil || !ok {
			return err
		}
		if window {
			t.openWindow(ctx, resource, token)
		}
		sent = true
		_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.HSet(ctx, key, fieldValue, value, fieldToken, strconv.FormatUint(token, 10))
			return nil
		})
		if err == nil {
			out = histories.Accepted
		}
		return err
	}, key)
	switch {
	case err == nil:
		return out, nil
	case errors.Is(err, redis.TxFailedErr):
		return 0, err
	case !sent:
		// WATCH or the read failed: MULTI was never sent.
		return 0, notApplied(err)
	}
	return 0, fmt.Errorf("exec: %w", classify(err))
}
