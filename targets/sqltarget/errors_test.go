package sqltarget

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/targets"
)

// TestErrorsAreUnknownUnlessNeverSent checks which write errors are
// recorded as definitely not applied (fail) and which as unknown (info).
func TestErrorsAreUnknownUnlessNeverSent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cases := []struct {
		name       string
		opts       Options
		spoil      func(t *testing.T, tgt *Target)
		token      uint64
		notApplied bool
	}{
		{name: "token too large for BIGINT is never sent", opts: DefaultOptions(), token: math.MaxInt64 + 1, notApplied: true},
		{name: "closed pool: no connection, nothing sent", opts: DefaultOptions(), token: 1, notApplied: true,
			spoil: func(t *testing.T, tgt *Target) { require.NoError(t, tgt.db.Close()) }},
		{name: "check-then-set failing at its read never updated", opts: modeOptions(ModeCheckThenSet), token: 1, notApplied: true,
			spoil: func(t *testing.T, tgt *Target) { require.NoError(t, tgt.Teardown(ctx)) }},
		{name: "a statement the database refused is unknown", opts: DefaultOptions(), token: 1,
			spoil: func(t *testing.T, tgt *Target) { require.NoError(t, tgt.Teardown(ctx)) }},
		{name: "SQLite busy past the timeout is unknown", opts: timeoutOptions(500 * time.Millisecond), token: 1,
			spoil: func(t *testing.T, tgt *Target) {
				// Another connection holds the write lock.
				conn, err := tgt.db.Conn(ctx)
				require.NoError(t, err)
				_, err = conn.ExecContext(ctx, "BEGIN IMMEDIATE")
				require.NoError(t, err)
				t.Cleanup(func() {
					_, _ = conn.ExecContext(ctx, "ROLLBACK")
					conn.Close()
				})
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tgt, err := Open(ctx, engines[0].spec(t), tc.opts)
			require.NoError(t, err)
			defer tgt.Close()
			require.NoError(t, tgt.Setup(ctx))
			if tc.spoil != nil {
				tc.spoil(t, tgt)
			}
			_, err = tgt.Write(ctx, "r", tc.token, "v")
			require.Error(t, err)
			assert.Equal(t, tc.notApplied, errors.Is(err, targets.ErrDefinitelyNotApplied), "%v", err)
			assert.Contains(t, err.Error(), tgt.Name(), "errors name the target")
		})
	}
}

// timeoutOptions are the defaults with another statement deadline.
func timeoutOptions(d time.Duration) Options {
	o := DefaultOptions()
	o.Timeout = d
	return o
}
