package harness

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/targets/memory"
)

// TestVirtualClock: a run on a synctest bubble's clock, with the run's
// own tasks woken one at a time, repeats its history byte for byte with
// the same seed, names its resources from the seed, and is named and
// dated by the wall-clock start its caller gives, not by the bubble's
// clock, which starts at 2000-01-01.
func TestVirtualClock(t *testing.T) {
	t.Parallel()
	started := time.Date(2026, 5, 4, 3, 2, 1, 0, time.UTC)
	store := schema.TempDir(t)
	run := func(name string, seed uint64) Result {
		var res Result
		synctest.Test(t, func(t *testing.T) {
			tgt, err := memory.Open(name)
			require.NoError(t, err)
			faults, err := nemesis.Parse("pause,delay")
			require.NoError(t, err)
			cfg := testConfig(t, tgt, "memory://"+name, func(c *Config) {
				c.Runtime.Deterministic, c.Runtime.VirtualClock, c.Runtime.Started, c.Store.Dir = false, true, started, store
				c.Nemesis.Faults, c.Runtime.Seed, c.Workload.Duration = faults, seed, 3*time.Second
			})
			res, err = Run(t.Context(), cfg)
			require.NoError(t, err)
			assert.Equal(t, 3*time.Second, res.Elapsed.Truncate(time.Second), "the run's own clock is the bubble's")
		})
		return res
	}
	history := func(res Result) []byte {
		b, err := os.ReadFile(filepath.Join(res.Dir, "history.jsonl"))
		require.NoError(t, err)
		return b
	}
	a, b, other := run("fenced", 3), run("fenced", 3), run("fenced", 4)
	assert.Equal(t, judge.Held, a.Verdict, a.Reason)
	assert.True(t, bytes.Equal(history(a), history(b)), "the same seed gives the same history")
	assert.False(t, bytes.Equal(history(a), history(other)), "another seed another")
	assert.Equal(t, a.Config.RunID, b.Config.RunID, "the run id is drawn from the seed")
	assert.Equal(t, started, a.Started)
	assert.True(t, strings.HasPrefix(filepath.Base(a.Dir), "20260504T030201"), a.Dir)
	assert.True(t, a.Config.VirtualClock)
	assert.Contains(t, a.Summary(), "(virtual time, seed 3)")

	bug := run("check-then-set", 3)
	assert.Equal(t, judge.Violated, bug.Verdict, "the race window of a memory receiver is explored on the virtual clock too")
}
