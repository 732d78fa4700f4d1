package harness

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/runstore"
	"github.com/fencecheck/fencecheck/targets/memory"
)

// TestKeepViolations: under KeepViolations a run that held leaves nothing
// in the store, and one that found a violation is stored as KeepAll
// stores it: the same verdict, result and history, byte for byte.
func TestKeepViolations(t *testing.T) {
	t.Parallel()
	cases := []struct {
		target string
		want   judge.Verdict
	}{
		{"fenced", judge.Held},
		{"check-then-set", judge.Violated},
	}
	for _, tc := range cases {
		t.Run(tc.target, func(t *testing.T) {
			t.Parallel()
			run := func(keep Keep) Result {
				tgt, err := memory.Open(tc.target)
				require.NoError(t, err)
				faults, err := nemesis.Parse("pause,delay")
				require.NoError(t, err)
				res, err := Run(context.Background(), testConfig(t, tgt, "memory://"+tc.target, func(c *Config) {
					c.Nemesis.Faults, c.Gates.MinStale, c.Runtime.Seed, c.Store.Keep = faults, 1, 3, keep
				}))
				require.NoError(t, err)
				return res
			}
			all, some := run(KeepAll), run(KeepViolations)
			require.Equal(t, tc.want, all.Verdict, all.Reason)
			assert.Equal(t, all.Verdict, some.Verdict)
			assert.Equal(t, all.Counts, some.Counts)
			assert.Equal(t, all.Coverage, some.Coverage)
			if all.Minimal != nil {
				require.NotNil(t, some.Minimal)
				assert.Equal(t, all.Minimal.OpIDs, some.Minimal.OpIDs, "the same minimal counterexample")
			}
			if tc.want != judge.Violated {
				assert.Empty(t, some.Dir, "a run that held has no directory")
				return
			}
			require.NotEmpty(t, some.Dir)
			a, err := os.ReadFile(filepath.Join(all.Dir, runstore.History))
			require.NoError(t, err)
			b, err := os.ReadFile(filepath.Join(some.Dir, runstore.History))
			require.NoError(t, err)
			assert.Equal(t, a, b, "the kept history is the one KeepAll records")
			for _, f := range []string{runstore.Result, runstore.Summary, runstore.Report} {
				assert.FileExists(t, filepath.Join(some.Dir, f))
			}
			h, err := histories.Read(t.Context(), histories.Source{Path: filepath.Join(some.Dir, runstore.History)})
			require.NoError(t, err)
			assert.Len(t, h.Ops, all.Counts.Operations)
		})
	}
	t.Run("a store of held runs stays empty", func(t *testing.T) {
		t.Parallel()
		cfg := testConfig(t, memory.NewFenced(), "memory://fenced", func(c *Config) { c.Store.Keep = KeepViolations })
		for seed := range uint64(3) {
			cfg.Runtime.Seed, cfg.Target.Receiver = seed, memory.NewFenced()
			res, err := Run(context.Background(), cfg)
			require.NoError(t, err)
			require.Equal(t, judge.Held, res.Verdict, res.Reason)
		}
		entries, err := os.ReadDir(cfg.Store.Dir)
		require.NoError(t, err)
		assert.Empty(t, entries)
	})
}
