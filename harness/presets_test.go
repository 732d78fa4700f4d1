package harness

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/targets/memory"
)

// TestPresetsDoWhatTheyAreNamedFor: a caller picks a preset for what it
// exercises. On the same seed and length, the contended workload puts
// more writes in flight at once on a resource than the default, the
// spread one touches more resources, and both hold against the correct
// receiver with the default faults.
func TestPresetsDoWhatTheyAreNamedFor(t *testing.T) {
	t.Parallel()
	run := func(w Workload) Result {
		faults, err := nemesis.Parse("pause,delay")
		require.NoError(t, err)
		res, err := Run(context.Background(), testConfig(t, memory.NewFenced(), "memory://fenced", func(c *Config) {
			w.Ops, w.Duration = 1500, 0
			c.Workload, c.Nemesis.Faults, c.Runtime.Seed, c.Gates.MinStale = w, faults, 3, 1
		}))
		require.NoError(t, err)
		return res
	}
	def, contended, spread := run(DefaultConfig().Workload), run(ContendedWorkload()), run(SpreadWorkload())
	for name, res := range map[string]Result{"default": def, "contended": contended, "spread": spread} {
		assert.Equal(t, judge.Held, res.Verdict, "%s: %s", name, res.Reason)
	}
	assert.Greater(t, contended.Coverage.ConcurrentWrites, def.Coverage.ConcurrentWrites, "more writes in flight at once on one resource")
	assert.Equal(t, 1, contended.Counts.Resources)
	assert.Greater(t, spread.Counts.Resources, def.Counts.Resources)
	t.Logf("concurrent writes: default %d, contended %d; resources: default %d, spread %d",
		def.Coverage.ConcurrentWrites, contended.Coverage.ConcurrentWrites, def.Counts.Resources, spread.Counts.Resources)
}
