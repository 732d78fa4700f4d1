package explore

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/harness"
	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/nemesis"
	targetspec "github.com/fencecheck/fencecheck/targets/spec"
)

// memoryTwins are the twins of a memory target, with a Run that makes a
// twin's run in cfg as Sweep makes a seed's: the seed, fresh faults, a
// receiver of its own.
func memoryTwins(t *testing.T, cfg harness.Config, runs int, confidence float64, extra ...string) *Calibrate {
	t.Helper()
	s, err := targetspec.Parse("memory://fenced", targetspec.DefaultOptions())
	require.NoError(t, err)
	twins, err := s.Twins()
	require.NoError(t, err)
	for _, name := range extra { // a bug a run finds only sometimes
		es, err := targetspec.Parse("memory://"+name, targetspec.DefaultOptions())
		require.NoError(t, err)
		twins = append(twins, targetspec.Twin{Name: name, Broken: "rarely", Spec: es})
	}
	c := &Calibrate{Runs: runs, Confidence: confidence}
	for _, tw := range twins {
		c.Twins = append(c.Twins, judge.Twin{Name: tw.Name, Broken: tw.Broken})
	}
	c.Run = func(ctx context.Context, i int, tr Trial) (harness.Result, error) {
		tt, err := twins[i].Spec.Open(ctx, nil)
		if err != nil {
			return harness.Result{}, err
		}
		g := cfg
		g.Runtime.Seed, g.Store.Keep, g.Store.RunName, g.Target.Receiver, g.Target.Name = tr.Seed, harness.KeepViolations, "twin-"+twins[i].Name, tt.Target, tt.Name
		if g.Nemesis.Faults, err = nemesis.Parse(strings.Join(nemesis.NamesOf(cfg.Nemesis.Faults), ",")); err != nil {
			return harness.Result{}, err
		}
		return harness.Run(ctx, g)
	}
	return c
}

// TestCalibrationMeasuresWhatASweepOfTheTwinFinds: in the deterministic
// simulation a twin's calibrated rate is exactly the share of seeds an
// independent sweep of that twin, on the same seeds, finds violated: the
// calibration measures the configuration, nothing else.
func TestCalibrationMeasuresWhatASweepOfTheTwinFinds(t *testing.T) {
	t.Parallel()
	const runs = 8
	cfg, opts := memoryConfig(t, "fenced", Seeds{1, 20}, 2)
	opts.Calibrate = memoryTwins(t, cfg, runs, 0, "check-then-set-rare", "lost-write-rare")
	res, err := Sweep(context.Background(), cfg, opts)
	require.NoError(t, err)
	require.NotNil(t, res.Calibration)
	require.Len(t, res.Calibration.Twins, 4)
	for _, tw := range res.Calibration.Twins {
		c, o := memoryConfig(t, tw.Name, Seeds{1, runs}, 2)
		o.KeepGoing = true
		ind, err := Sweep(context.Background(), c, o)
		require.NoError(t, err)
		t.Logf("twin %s: calibrated %d of %d (rate %.3f); independent sweep %d of %d (rate %.3f)",
			tw.Name, tw.Caught, tw.Runs, tw.Rate, ind.Violated, ind.Runs, float64(ind.Violated)/float64(ind.Runs))
		assert.Equal(t, ind.Runs, tw.Runs, tw.Name)
		assert.Equal(t, ind.Violated, tw.Caught, tw.Name)
		lo, hi := judge.ClopperPearson(ind.Violated, ind.Runs, judge.CalibrationLevel)
		assert.InDelta(t, lo, tw.Lower, 1e-12)
		assert.InDelta(t, hi, tw.Upper, 1e-12)
		assert.InDelta(t, judge.Caught(tw.Lower, res.Runs), tw.Probability, 1e-12)
	}
	assert.Equal(t, judge.Held, res.Verdict, res.Reason)
	t.Logf("summary:\n%s", res.Summary())
}

// TestConfidenceChoosesTheSeeds: with a confidence the sweep runs the
// seeds the hardest twin needs and stops there, reaching it for every
// twin; a confidence beyond the seeds allowed leaves the pass
// inconclusive.
func TestConfidenceChoosesTheSeeds(t *testing.T) {
	t.Parallel()
	cfg, opts := memoryConfig(t, "fenced", Seeds{1, 100}, 2)
	opts.Calibrate = memoryTwins(t, cfg, 6, 0.99)
	res, err := Sweep(context.Background(), cfg, opts)
	require.NoError(t, err)
	c := res.Calibration
	require.NotNil(t, c)
	want := judge.Plan(c.Twins, 0.99, 100)
	assert.Equal(t, want.Seeds, res.Runs, "the seeds the plan chose")
	assert.True(t, c.Reached, c.Why)
	assert.Equal(t, judge.Held, res.Verdict, res.Reason)
	assert.Contains(t, res.Summary(), "seeds       ")
	assert.Contains(t, res.Summary(), "would have been caught by")

	cfg, opts = memoryConfig(t, "fenced", Seeds{1, 1}, 1)
	opts.Calibrate = memoryTwins(t, cfg, 2, 0.999999)
	res, err = Sweep(context.Background(), cfg, opts)
	require.NoError(t, err)
	assert.False(t, res.Calibration.Reached)
	assert.Equal(t, judge.Inconclusive, res.Verdict, res.Reason)
	assert.Contains(t, res.Reason, "did not reach")
}

// TestCalibrationForOneRun: a single run's calibration measures each
// twin on seeds 1 to Runs, as a sweep's does, and states it for one run.
func TestCalibrationForOneRun(t *testing.T) {
	t.Parallel()
	const runs = 3
	cfg, _ := memoryConfig(t, "fenced", Seeds{1, 1}, 1)
	c := memoryTwins(t, cfg, runs, 0)
	cal, err := c.ForOneRun(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 1, cal.Seeds)
	assert.True(t, cal.Reached)
	require.Len(t, cal.Twins, len(c.Twins))
	for _, tw := range cal.Twins {
		assert.Equal(t, runs, tw.Runs, tw.Name)
	}
}
