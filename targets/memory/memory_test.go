package memory

import (
	"context"
	"sync"
	"testing"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/targets"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReceiversAnswerTheSeedsSteps(t *testing.T) {
	t.Parallel()
	type step struct {
		token uint64
		value string
		want  histories.Outcome
	}
	cases := []struct {
		name  string
		open  string
		steps []step
		final string
	}{
		{"fenced rejects older and equal tokens", "fenced", []step{{42, "new", histories.Accepted}, {41, "old", histories.Rejected}, {42, "dup", histories.Rejected}}, "new"},
		{"accept-equal accepts the repeat", "accept-equal", []step{{42, "new", histories.Accepted}, {41, "old", histories.Rejected}, {42, "dup", histories.Accepted}}, "dup"},
		{"unfenced accepts everything", "unfenced", []step{{42, "new", histories.Accepted}, {41, "old", histories.Accepted}}, "old"},
		{"check-then-set without a race behaves", "check-then-set", []step{{42, "new", histories.Accepted}, {41, "old", histories.Rejected}}, "new"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			tgt, err := Open(tc.open)
			require.NoError(t, err)
			r, err := tgt.Read(ctx, "report")
			require.NoError(t, err)
			assert.False(t, r.Found)
			for _, s := range tc.steps {
				out, err := tgt.Write(ctx, "report", s.token, s.value)
				require.NoError(t, err)
				assert.Equal(t, s.want, out, "token %d", s.token)
			}
			r, err = tgt.Read(ctx, "report")
			require.NoError(t, err)
			assert.Equal(t, tc.final, r.Value)
			other, err := tgt.Read(ctx, "other")
			require.NoError(t, err)
			assert.False(t, other.Found, "resources are independent")
		})
	}
}

// TestCheckThenSetRace drives both writers through the check before
// either writes: the lower token is applied last and wins.
func TestCheckThenSetRace(t *testing.T) {
	t.Parallel()
	c := NewCheckThenSet()
	var checked sync.WaitGroup
	checked.Add(2)
	release42 := make(chan struct{})
	c.Window = func(ctx context.Context, _ string, _ uint64) {
		checked.Done()
		checked.Wait()
		if ctx.Value(tokenKey{}) == uint64(41) {
			<-release42 // 41 writes after 42
		}
	}
	var wg sync.WaitGroup
	outs := make(map[uint64]histories.Outcome)
	var mu sync.Mutex
	for _, tok := range []uint64{41, 42} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := c.Write(context.WithValue(context.Background(), tokenKey{}, tok), "r", tok, "v")
			assert.NoError(t, err)
			mu.Lock()
			outs[tok] = out
			mu.Unlock()
			if tok == 42 {
				close(release42)
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, histories.Accepted, outs[41])
	assert.Equal(t, histories.Accepted, outs[42])
	r, err := c.Read(context.Background(), "r")
	require.NoError(t, err)
	assert.Equal(t, uint64(41), r.Token, "the stale write landed last")
}

type tokenKey struct{}

func TestOpenRejectsUnknownNames(t *testing.T) {
	t.Parallel()
	_, err := Open("fencd")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"fencd"`)
}

// TestWritesWithoutTokenBypassTheFence: no in-memory receiver can
// compare a token it is not sent: each stores the value, and keeps the
// highest token it was sent.
func TestWritesWithoutTokenBypassTheFence(t *testing.T) {
	t.Parallel()
	for _, name := range Names {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			tgt, err := Open(name)
			require.NoError(t, err)
			w, err := targets.Tokenless(tgt)
			require.NoError(t, err)
			out, err := tgt.Write(ctx, "report", 42, "new-result")
			require.NoError(t, err)
			require.Equal(t, histories.Accepted, out)
			out, err = w.WriteWithoutToken(ctx, "report", "old-result")
			require.NoError(t, err)
			assert.Equal(t, histories.Accepted, out)
			r, err := tgt.Read(ctx, "report")
			require.NoError(t, err)
			assert.Equal(t, targets.Reading{Found: true, Value: "old-result", Token: 42, HasToken: true}, r)
		})
	}
}
