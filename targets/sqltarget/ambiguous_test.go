package sqltarget

import (
	"context"
	"errors"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/internal/unique"
	"github.com/fencecheck/fencecheck/nemesis/tcpproxy"
	"github.com/fencecheck/fencecheck/targets"
)

// TestAmbiguousCommitIsUnknown: a write whose connection is reset after
// the statement reached the server, and before the server's answer
// reached the client, is an unknown outcome (never definitely not
// applied) on the real PostgreSQL and MariaDB. The TCP proxy fires the
// reset on events: it forwards the chunk that carries the write's value,
// and resets on the first byte of the server's answer. For the atomic
// upsert (one autocommit statement) the server had committed: the row
// read back afterwards holds the write, so calling it failed would have
// been a lie. For check-then-set the reset lands inside the transaction,
// before COMMIT, and the server rolls it back: the same unknown outcome
// covers a write that did not happen.
func TestAmbiguousCommitIsUnknown(t *testing.T) {
	t.Parallel()
	cases := []struct {
		mode    Mode
		applied bool
	}{
		{mode: ModeAtomic, applied: true},
		{mode: ModeCheckThenSet, applied: false},
	}
	for _, e := range engines {
		if e.server == nil {
			continue // SQLite is not reached over TCP
		}
		for _, tc := range cases {
			t.Run(e.name+"/"+string(tc.mode), func(t *testing.T) {
				t.Parallel()
				ctx := context.Background()
				value := "ambiguous-" + unique.Hex(8)
				reset := tcpproxy.NewReset()
				reset.Select = tcpproxy.Carrying([]byte(value))
				tgt := open(t, throughProxy(t, e.spec(t), reset), modeOptions(tc.mode))
				_, err := tgt.Write(ctx, "r", 3, "before")
				require.NoError(t, err)

				reset.SetActive(true)
				_, err = tgt.Write(ctx, "r", 5, value)
				reset.SetActive(false)
				require.Error(t, err, "the answer never reached the client")
				t.Logf("%s %s: the reset write answered: %v", e.name, tc.mode, err)
				assert.False(t, errors.Is(err, targets.ErrDefinitelyNotApplied), "recorded as failed, but the server had the statement: %v", err)

				got, err := tgt.Read(ctx, "r")
				require.NoError(t, err, "a new connection reads")
				if tc.applied {
					assert.Equal(t, value, got.Value, "the server committed the write the client saw reset")
					assert.Equal(t, uint64(5), got.Token)
				} else {
					assert.Equal(t, "before", got.Value, "the server rolled the transaction back")
				}
				t.Logf("%s %s: read back after the reset: value %q token %d", e.name, tc.mode, got.Value, got.Token)
			})
		}
	}
}

// throughProxy starts the TCP fault proxy in front of spec's server and
// returns the spec that reaches the server through it.
func throughProxy(t *testing.T, spec string, toxics ...tcpproxy.Toxic) string {
	t.Helper()
	u, err := url.Parse(spec)
	require.NoError(t, err)
	require.NotEmpty(t, u.Port(), "the test DSN names its port")
	p, err := tcpproxy.Start(u.Host, toxics...)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, p.Close()) })
	u.Host = p.Addr()
	return u.String()
}
