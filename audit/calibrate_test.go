package audit

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/explore"
	"github.com/fencecheck/fencecheck/harness"
	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/targets/memory"
)

// memoryTwins are the memory receiver's twins for a calibrated audit,
// run as memoryAudit runs the receiver.
func memoryTwins(t *testing.T) *explore.Calibrate {
	names := []string{"check-then-set", "unfenced"}
	c := &explore.Calibrate{Runs: 4}
	for _, n := range names {
		c.Twins = append(c.Twins, judge.Twin{Name: n, Broken: "planted"})
	}
	c.Run = func(ctx context.Context, i int, tr explore.Trial) (harness.Result, error) {
		tgt, err := memory.Open(names[i])
		if err != nil {
			return harness.Result{}, err
		}
		faults, err := nemesis.Parse("pause,delay")
		require.NoError(t, err)
		cfg := harness.DefaultConfig()
		cfg.Target.Receiver, cfg.Target.Name, cfg.Nemesis.Faults = tgt, "memory://"+names[i], faults
		cfg.Runtime.Seed, cfg.Runtime.Deterministic = tr.Seed, true
		cfg.Store.Dir, cfg.Store.Keep = schema.TempDir(t), harness.KeepViolations
		return harness.Run(ctx, cfg)
	}
	return c
}

// TestCalibratedPausedWorkerStep: with a confidence the paused-worker
// test measures the twins, runs the seeds they ask for, and a pass says
// how likely it was to catch a receiver broken like each; a confidence
// the seeds cannot reach leaves the step inconclusive, saying what was
// reached.
func TestCalibratedPausedWorkerStep(t *testing.T) {
	t.Parallel()
	o := memoryAudit(t, "fenced", testIssuer{})
	o.Seeds, o.Confidence, o.Calibrate = 20, 0.99, memoryTwins(t)
	rep, err := Run(context.Background(), o)
	require.NoError(t, err)
	step := rep.Steps[StepPausedWorker-1]
	evidence := strings.Join(step.Evidence, "\n")
	t.Logf("step 4: %s: %s\n%s", step.Result, step.Reason, evidence)
	assert.Equal(t, "held", step.Result, step.Reason)
	assert.Contains(t, evidence, "twin check-then-set: caught in 4 of 4 twin runs")
	assert.Contains(t, evidence, "seeds: ")
	assert.Regexp(t, `a receiver broken like check-then-set \(planted\) would have been caught by these \d+ runs with probability ≥ 0\.99`, evidence)
	assert.Equal(t, judge.Held, rep.Verdict, rep.Reason)

	o = memoryAudit(t, "fenced", testIssuer{})
	o.Seeds, o.Confidence, o.Calibrate = 1, 0.999999, memoryTwins(t)
	rep, err = Run(context.Background(), o)
	require.NoError(t, err)
	step = rep.Steps[StepPausedWorker-1]
	assert.Equal(t, "inconclusive", step.Result)
	assert.Contains(t, step.Reason, "did not reach")
	assert.Contains(t, strings.Join(step.Evidence, "\n"), "with probability ≥ ")
	assert.Equal(t, judge.Inconclusive, rep.Verdict)
}
