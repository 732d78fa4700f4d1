package memory

import (
	"context"
	"fmt"
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
		{"check-then-set-rare without a race behaves", "check-then-set-rare", []step{{42, "new", histories.Accepted}, {41, "old", histories.Rejected}, {42, "dup", histories.Rejected}}, "new"},
		{"lost-write-rare mostly keeps its writes", "lost-write-rare", []step{{42, "new", histories.Accepted}, {41, "old", histories.Rejected}, {42, "dup", histories.Rejected}}, "new"},
		{"uint32-tokens below 2^32 behaves", "uint32-tokens", []step{{1<<32 - 2, "new", histories.Accepted}, {1<<32 - 3, "old", histories.Rejected}, {1<<32 - 2, "dup", histories.Rejected}}, "new"},
		{"uint32-tokens rejects 2^32 after 2^32-1", "uint32-tokens", []step{{1<<32 - 1, "below", histories.Accepted}, {1 << 32, "across", histories.Rejected}}, "below"},
		{"uint32-tokens takes an older token above 2^32", "uint32-tokens", []step{{1<<32 + 1, "new", histories.Accepted}, {7, "old", histories.Accepted}}, "old"},
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
	for _, name := range Names() {
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

// TestRareDefectsAreAsRareAsSaid: over many distinct writes, the window
// of check-then-set-rare opens and lost-write-rare loses about as often
// as their odds say, and only the writes their hash picks.
func TestRareDefectsAreAsRareAsSaid(t *testing.T) {
	t.Parallel()
	const writes = 200_000
	ctx := context.Background()
	cts := NewCheckThenSetRare()
	opened := 0
	cts.SetWindow(func(context.Context, string, uint64) { opened++ })
	lost := NewLostWriteRare()
	dropped := 0
	for i := range writes {
		resource, token, value := fmt.Sprintf("run-r%d", i%4), uint64(i/4+1), fmt.Sprintf("w%d-j%d", i%8, i)
		_, err := cts.Write(ctx, resource, token, value)
		require.NoError(t, err)
		out, err := lost.Write(ctx, resource, token, value)
		require.NoError(t, err)
		require.Equal(t, histories.Accepted, out, "every newer token is acknowledged")
		if r, _ := lost.Read(ctx, resource); r.Value != value {
			dropped++
			assert.True(t, oneIn(LostWriteOdds, "lost-write-rare", resource, token, value), "lost a write its hash did not pick")
		}
	}
	assert.InEpsilon(t, writes/CheckThenSetRareOdds, opened, 0.1)
	assert.InEpsilon(t, writes/LostWriteOdds, dropped, 0.1)
}

// TestLostWriteRareAcknowledgesAndForgets: the write it picks is answered
// accepted and leaves neither value nor token behind, so a stale token
// below it is accepted next.
func TestLostWriteRareAcknowledgesAndForgets(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	value := ""
	for i := 0; value == ""; i++ {
		if v := fmt.Sprintf("v%d", i); oneIn(LostWriteOdds, "lost-write-rare", "r", 10, v) {
			value = v
		}
	}
	l := NewLostWriteRare()
	out, err := l.Write(ctx, "r", 5, "kept")
	require.NoError(t, err)
	require.Equal(t, histories.Accepted, out)
	out, err = l.Write(ctx, "r", 10, value)
	require.NoError(t, err)
	assert.Equal(t, histories.Accepted, out)
	r, err := l.Read(ctx, "r")
	require.NoError(t, err)
	assert.Equal(t, targets.Reading{Found: true, Value: "kept", Token: 5, HasToken: true}, r)
	out, err = l.Write(ctx, "r", 7, "stale")
	require.NoError(t, err)
	assert.Equal(t, histories.Accepted, out, "the lost token never raised the fence")
}

// TestMakerMakesFreshReceivers: each receiver a maker makes starts empty,
// and a name Open does not know is refused at once.
func TestMakerMakesFreshReceivers(t *testing.T) {
	t.Parallel()
	newReceiver, err := Maker("fenced")
	require.NoError(t, err)
	a, b := newReceiver(), newReceiver()
	_, err = a.Write(context.Background(), "r", 5, "v")
	require.NoError(t, err)
	got, err := b.Read(context.Background(), "r")
	require.NoError(t, err)
	assert.False(t, got.Found, "the second receiver has nothing of the first's")
	_, err = Maker("nope")
	assert.ErrorContains(t, err, `unknown memory target "nope"`)
}
