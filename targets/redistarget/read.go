package redistarget

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"

	"github.com/fencecheck/fencecheck/internal/redact"
	"github.com/fencecheck/fencecheck/targets"
)

// Read returns the stored value and token: from the hash of the built-in
// layout (HMGET value token), or from the user's read script.
func (t *Target) Read(ctx context.Context, resource string) (targets.Reading, error) {
	var r targets.Reading
	var err error
	if t.read != nil {
		r, err = t.readScript(ctx, resource)
	} else {
		r, err = t.readLayout(ctx, resource)
	}
	if err != nil {
		return targets.Reading{}, fmt.Errorf("read %s at %s: %w", resource, t.name, redact.Error(err, t.secrets))
	}
	return r, nil
}

// readLayout reads the hash. A hash without a value field was never
// written (the layout has tokens, so the reading says it has one, as a
// missing row of a SQL table with a token column does); a value without
// a token field (a user's script that keeps only the value) is read
// without a token.
func (t *Target) readLayout(ctx context.Context, resource string) (targets.Reading, error) {
	vals, err := t.client.HMGet(ctx, t.key(resource), fieldValue, fieldToken).Result()
	if err != nil {
		return targets.Reading{}, err
	}
	if vals[0] == nil {
		return targets.Reading{HasToken: true}, nil
	}
	return reading(vals)
}

// readScript runs the user's read script: nil (never written), {value}
// or {value, token}.
func (t *Target) readScript(ctx context.Context, resource string) (targets.Reading, error) {
	reply, err := t.read.Run(ctx, t.client, []string{t.key(resource)}).Result()
	if errors.Is(err, redis.Nil) {
		return targets.Reading{}, nil
	}
	if err != nil {
		return targets.Reading{}, err
	}
	vals, ok := reply.([]any)
	if !ok || len(vals) < 1 || len(vals) > 2 {
		return targets.Reading{}, fmt.Errorf("the read script replied %s; want nil, {value} or {value, token}", describe(reply))
	}
	if len(vals) == 1 {
		vals = append(vals, nil)
	}
	return reading(vals)
}

// reading makes a Reading of a value and a token, each nil when absent.
// The token may be a string or an integer.
func reading(vals []any) (targets.Reading, error) {
	if vals[0] == nil {
		return targets.Reading{HasToken: vals[1] != nil}, nil
	}
	value, ok := vals[0].(string)
	if !ok {
		return targets.Reading{}, fmt.Errorf("the value read is %s, not a string", describe(vals[0]))
	}
	r := targets.Reading{Found: true, Value: value}
	switch tok := vals[1].(type) {
	case nil:
	case string:
		n, err := strconv.ParseUint(tok, 10, 64)
		if err != nil {
			return targets.Reading{}, fmt.Errorf("the token read, %q, is not a token: %w", tok, err)
		}
		r.Token, r.HasToken = n, true
	case int64:
		if tok < 0 {
			return targets.Reading{}, fmt.Errorf("the token read is negative: %d", tok)
		}
		r.Token, r.HasToken = uint64(tok), true
	default:
		return targets.Reading{}, fmt.Errorf("the token read is %s, not a string or an integer", describe(tok))
	}
	return r, nil
}
