package fencetest

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/explore"
	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/targets"
	"github.com/fencecheck/fencecheck/targets/memory"
)

// TestSweepAHandler: a sweep of an in-process handler, each seed in a
// synctest bubble of its own against a handler of its own, finds the
// check-then-set store's race and reports its first failing seed with
// the go test line that runs that seed alone; the store that compares
// and sets under its lock passes every seed.
func TestSweepAHandler(t *testing.T) {
	t.Parallel()
	for _, tc := range stores {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := &recorder{TB: t}
			cfg := Config(rec, nil)
			cfg.Store.Dir, cfg.Workload.Duration = schema.TempDir(t), 2*time.Second
			newHandler := func() http.Handler { return newTokenStore(tc.window) }
			res := Sweep(rec, cfg, explore.Seeds{First: 1, Last: 12}, SweepOptions{Synctest: true, Parallel: 2,
				NewTarget: func() (targets.Target, error) { return HandlerTarget(newHandler(), DefaultOptions()) }})
			require.False(t, rec.fatal, "%v", rec.errors)
			assert.Equal(t, tc.want, res.Verdict, res.Reason)
			assert.Equal(t, "virtual time", res.Mode)
			if tc.want == judge.Held {
				assert.Empty(t, rec.errors)
				assert.Equal(t, 12, res.Runs)
				assert.Zero(t, res.Violated)
				return
			}
			require.Len(t, rec.errors, 1, "the violation fails the test")
			require.NotEmpty(t, res.Failures)
			f := res.Failures[0]
			msg := rec.errors[0]
			assert.Contains(t, msg, "failing seed "+strconv.FormatUint(f.Seed, 10))
			assert.Contains(t, msg, "minimal counterexample:")
			assert.Contains(t, msg, "reproduce   go test -run '^TestSweepAHandler$/^check-then-set_is_violated$' ./fencetest -fencetest.seed="+strconv.FormatUint(f.Seed, 10))
		})
	}
}

// TestSweepNeedsATargetPerRunInABubble: runs in bubbles name their
// resources from their seeds, and may not share one receiver.
func TestSweepNeedsATargetPerRunInABubble(t *testing.T) {
	t.Parallel()
	rec := &recorder{TB: t}
	cfg := Config(rec, memory.NewFenced())
	cfg.Store.Dir = schema.TempDir(t)
	Sweep(rec, cfg, explore.Seeds{First: 1, Last: 2}, SweepOptions{Synctest: true})
	assert.True(t, rec.fatal)
	require.Len(t, rec.errors, 1)
	assert.Contains(t, rec.errors[0], "NewTarget")
}

// TestSweepSwarmInTheSimulation: Sweep in the simulation with a swarm, a
// memory receiver per run.
func TestSweepSwarmInTheSimulation(t *testing.T) {
	t.Parallel()
	rec := &recorder{TB: t}
	cfg := Config(rec, nil)
	cfg.Store.Dir, cfg.Workload.Duration, cfg.Runtime.Deterministic = schema.TempDir(t), 2*time.Second, true
	res := Sweep(rec, cfg, explore.Seeds{First: 1, Last: 40}, SweepOptions{Swarm: true,
		NewTarget: func() (targets.Target, error) { return memory.NewCheckThenSet(), nil }})
	require.False(t, rec.fatal, "%v", rec.errors)
	assert.Equal(t, judge.Violated, res.Verdict, res.Reason)
	require.NotNil(t, res.Failures[0].Draw)
	assert.Equal(t, explore.DrawSwarm(res.Failures[0].Seed, explore.Space{}), *res.Failures[0].Draw)
}
