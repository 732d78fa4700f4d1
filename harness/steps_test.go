package harness

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/runstore"
	"github.com/fencecheck/fencecheck/sched"
	"github.com/fencecheck/fencecheck/targets/memory"
)

// TestEstimatedSteps holds the estimate PCT draws its change points from
// to the steps runs take: within a factor of two, for the default run and
// for runs bounded by operations, by rate, with few and many workers.
func TestEstimatedSteps(t *testing.T) {
	t.Parallel()
	// Each run parses its own faults: a fault belongs to one run.
	faults := func(names string) []nemesis.Fault {
		f, err := nemesis.Parse(names)
		require.NoError(t, err)
		return f
	}
	cases := []struct {
		name string
		set  func(*Config)
	}{
		{"the default run", func(c *Config) { c.Nemesis.Faults = faults("pause,delay") }},
		{"no faults", func(*Config) {}},
		{"300 operations", func(c *Config) { c.Nemesis.Faults, c.Workload.Ops, c.Workload.Duration = faults("pause,delay"), 300, 0 }},
		{"1000 operations, 2 workers", func(c *Config) {
			c.Nemesis.Faults, c.Workload.Ops, c.Workload.Duration, c.Workload.Workers = faults("pause,delay"), 1000, 0, 2
		}},
		{"32 workers for 2s", func(c *Config) {
			c.Nemesis.Faults, c.Workload.Duration, c.Workload.Workers = faults("pause,delay"), 2*time.Second, 32
		}},
		{"50 operations a second", func(c *Config) { c.Nemesis.Faults, c.Workload.Rate = faults("pause,delay"), 50 }},
		{"every fault", func(c *Config) { c.Nemesis.Faults = faults("pause,delay,expire,duplicate") }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var took int
			cfg := testConfig(t, memory.NewFenced(), "memory://fenced", func(c *Config) {
				c.Runtime.Seed, c.Store.NoReport, c.Gates.ShrinkTimeout = 3, true, 0
				tc.set(c)
				c.stepsTaken = func(n int) { took = n }
			})
			_, err := Run(context.Background(), cfg)
			require.NoError(t, err)
			est := cfg.estimatedSteps()
			t.Logf("estimated %d steps, took %d", est, took)
			require.Positive(t, took)
			assert.LessOrEqual(t, est, 2*took, "estimate too high")
			assert.GreaterOrEqual(t, 2*est, took, "estimate too low")
		})
	}
}

// pctHistory is the history of the default run against name with seed
// in the given task order.
func pctHistory(t *testing.T, name string, seed uint64, order sched.Order) ([]byte, Result) {
	t.Helper()
	res := defaultRunWith(t, name, seed, func(c *Config) { c.Runtime.TaskOrder, c.Store.NoReport = order, true })
	h, err := os.ReadFile(filepath.Join(res.Dir, runstore.History))
	require.NoError(t, err)
	require.NotEmpty(t, h)
	return h, res
}

// TestPCTRunsRepeatByteForByte: a PCT order is as reproducible as the
// random one, the same seed and depth giving the same history; and it
// orders the run's tasks otherwise than the random order does.
func TestPCTRunsRepeatByteForByte(t *testing.T) {
	t.Parallel()
	for _, order := range []sched.Order{sched.PCT(1), sched.PCT(2), sched.PCT(3)} {
		t.Run(order.String(), func(t *testing.T) {
			t.Parallel()
			a, res := pctHistory(t, "check-then-set", 99, order)
			b, _ := pctHistory(t, "check-then-set", 99, order)
			assert.True(t, bytes.Equal(a, b), "histories of the same seed and order differ")
			random, _ := pctHistory(t, "check-then-set", 99, sched.Random())
			assert.False(t, bytes.Equal(a, random), "%s ordered the run as the random order did", order)
			assert.Equal(t, order.String(), res.Config.TaskOrder)
			assert.Contains(t, res.Summary(), "(deterministic, "+order.String()+", seed 99)")
		})
	}
}
