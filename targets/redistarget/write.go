package redistarget

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/internal/redact"
)

// Write sends the write with its token, in the target's mode.
func (t *Target) Write(ctx context.Context, resource string, token uint64, value string) (histories.Outcome, error) {
	var out histories.Outcome
	var err error
	switch t.mode {
	case ModeCheckThenSet:
		out, err = t.checkThenSet(ctx, resource, token, value)
	case ModeWatch:
		out, err = t.watch(ctx, resource, token, value)
	default:
		out, err = t.runScript(ctx, resource, token, value)
	}
	if err != nil {
		return 0, fmt.Errorf("write token %d to %s at %s: %w", token, resource, t.name, redact.Error(err, t.secrets))
	}
	return out, nil
}

// runScript runs the atomic script or the user's, and reads its reply
// by the convention of docs/redis-receivers.md: the integer 1 is
// accepted, 0 rejected. Any other reply is an unknown outcome, for the
// script ran and fencecheck cannot tell what it did.
func (t *Target) runScript(ctx context.Context, resource string, token uint64, value string) (histories.Outcome, error) {
	reply, err := t.write.Run(ctx, t.client, []string{t.key(resource)}, strconv.FormatUint(token, 10), value, t.policy).Result()
	if errors.Is(err, redis.Nil) {
		reply, err = nil, nil
	}
	if err != nil {
		return 0, classify(err)
	}
	return outcomeOf(reply)
}

// outcomeOf reads a write script's reply.
func outcomeOf(reply any) (histories.Outcome, error) {
	if n, ok := reply.(int64); ok {
		switch n {
		case 1:
			return histories.Accepted, nil
		case 0:
			return histories.Rejected, nil
		}
	}
	return 0, fmt.Errorf("the script replied %s; want the integer 1 (accepted) or 0 (rejected)", describe(reply))
}

// describe names a reply for an error, bounded.
func describe(reply any) string {
	s := fmt.Sprintf("%#v", reply)
	if reply == nil {
		s = "nil (Lua false or nil)"
	}
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return s
}
