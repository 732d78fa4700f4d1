package sqltarget

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/targets"
)

// TestSeedSteps runs the article's steps one at a time against every engine
// and mode: with no concurrency, check-then-set behaves.
func TestSeedSteps(t *testing.T) {
	t.Parallel()
	type step struct {
		token uint64
		value string
		want  histories.Outcome
	}
	strict := []step{{42, "new", histories.Accepted}, {41, "old", histories.Rejected}, {42, "dup", histories.Rejected}, {43, "newer", histories.Accepted}}
	equal := []step{{42, "new", histories.Accepted}, {41, "old", histories.Rejected}, {42, "new", histories.Accepted}, {42, "dup", histories.Accepted}}
	cases := []struct {
		name  string
		opts  Options
		steps []step
		final string
		token uint64
	}{
		{"atomic strict", DefaultOptions(), strict, "newer", 43},
		{"atomic accept-equal", acceptEqualOptions(ModeAtomic), equal, "dup", 42},
		{"check-then-set strict", modeOptions(ModeCheckThenSet), strict, "newer", 43},
		{"check-then-set accept-equal", acceptEqualOptions(ModeCheckThenSet), equal, "dup", 42},
	}
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					ctx := context.Background()
					tgt := open(t, e.spec(t), tc.opts)
					r, err := tgt.Read(ctx, "report")
					require.NoError(t, err)
					assert.False(t, r.Found)
					for _, s := range tc.steps {
						out, err := tgt.Write(ctx, "report", s.token, s.value)
						require.NoError(t, err)
						assert.Equal(t, s.want, out, "token %d value %s", s.token, s.value)
					}
					r, err = tgt.Read(ctx, "report")
					require.NoError(t, err)
					assert.Equal(t, targets.Reading{Found: true, Value: tc.final, Token: tc.token, HasToken: true}, r)
					other, err := tgt.Read(ctx, "other")
					require.NoError(t, err)
					assert.False(t, other.Found, "resources are independent")
				})
			}
		})
	}
}

// acceptEqualOptions are the defaults with a built-in mode under the
// accept-equal policy.
func acceptEqualOptions(m Mode) Options {
	o := modeOptions(m)
	o.AcceptEqual = true
	return o
}
