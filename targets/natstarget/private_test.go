package natstarget

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/targets"
)

// TestPrivateServerSurvivesSIGKILL crashes the private server with
// SIGKILL after it acknowledged token 7 and starts it again on its
// store, under the default fsync (every two minutes) and under
// sync=always: the server still holds 7, rejects 6 and accepts 8. The
// default loses nothing here because a SIGKILL leaves the operating
// system's page cache, where the acknowledged write already is; what a
// power cut would lose under the default is not measured.
func TestPrivateServerSurvivesSIGKILL(t *testing.T) {
	t.Parallel()
	for _, spec := range []string{"nats://embedded", "nats://embedded?sync=always"} {
		t.Run(spec, func(t *testing.T) {
			t.Parallel()
			p := openPrivate(t, spec, DefaultOptions())
			ctx := context.Background()
			out, err := p.Write(ctx, "r0", 7, "before")
			require.NoError(t, err)
			require.Equal(t, histories.Accepted, out)
			require.NoError(t, p.Restart(ctx))
			got, err := p.Read(ctx, "r0")
			require.NoError(t, err)
			assert.Equal(t, targets.Reading{Found: true, Value: "before", Token: 7, HasToken: true}, got)
			for _, s := range []step{{6, "stale", histories.Rejected}, {8, "after", histories.Accepted}} {
				out, err := p.Write(ctx, "r0", s.token, s.value)
				require.NoError(t, err)
				assert.Equal(t, s.want, out, "token %d", s.token)
			}
			assert.NoError(t, p.Down(), "the server runs")
		})
	}
}

// TestPrivateServerWhileFrozen: a write while the server is frozen ends
// with an error (an unknown outcome or definitely not applied), never a
// rejection, and the target answers again once it is thawed.
func TestPrivateServerWhileFrozen(t *testing.T) {
	t.Parallel()
	p := openPrivate(t, "nats://embedded", DefaultOptions())
	ctx := context.Background()
	require.NoError(t, p.Freeze())
	// Whatever the bound, a frozen server answers nothing before it.
	frozen, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	_, err := p.Write(frozen, "r0", 1, "frozen")
	cancel()
	assert.Error(t, err)
	require.NoError(t, p.Thaw())
	require.NoError(t, p.reconnected(ctx))
	out, err := p.Write(ctx, "r0", 2, "thawed")
	require.NoError(t, err)
	assert.Equal(t, histories.Accepted, out)
}
