package explore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/fencecheck/fencecheck/harness"
	"github.com/fencecheck/fencecheck/judge"
)

// DefaultCalibrationRuns is how many runs a twin gets unless the caller
// says: enough for a twin caught every time to bound its rate at 0.69.
const DefaultCalibrationRuns = 10

// Calibrate measures how likely a pass is to catch a receiver broken in
// a known way: it runs the pass's configuration against twins of the
// target with planted bugs (targetspec.Spec.Twins) and counts the twin
// runs that violate.
type Calibrate struct {
	// Twins name the planted bugs: Name, Broken and Omitted of each
	// judge.Twin; the counts are Calibrate's to fill.
	Twins []judge.Twin
	// Runs is how many runs each twin gets, at the seeds from the sweep's
	// first (or Seeds.First) on.
	Runs int
	// Confidence, when above 0, makes a sweep run as many seeds as every
	// twin needs to be caught with at least this probability
	// (judge.Plan), at most the sweep's Seeds, and stop there.
	Confidence float64
	// Run makes twin i's run of trial tr: the pass's configuration
	// against the twin, stored, if at all, apart from the pass's runs.
	Run func(ctx context.Context, twin int, tr Trial) (harness.Result, error)
	_   struct{}
}

// Measure runs each twin c.Runs times, from seed first on, parallel at a
// time, every seed (a violation does not stop a twin: its rate is what
// is measured), and returns the twins with their counts and intervals.
// A twin run that is inconclusive counts as not caught.
// budget, if not nil, is the wall time left to the twins: each twin gets
// its share of it.
func (c *Calibrate) Measure(ctx context.Context, first uint64, parallel int, budget func() time.Duration) ([]judge.Twin, error) {
	if c.Runs < 1 {
		return nil, errors.New("explore: Calibrate.Runs must be at least 1")
	}
	if c.Run == nil || len(c.Twins) == 0 {
		return nil, errors.New("explore: Calibrate needs twins and a Run that makes their runs")
	}
	out := make([]judge.Twin, len(c.Twins))
	for i, t := range c.Twins {
		opts := Options{Seeds: Seeds{First: first, Last: first + uint64(c.Runs) - 1}, Parallel: parallel, KeepGoing: true}
		if budget != nil {
			// The target's own runs need time too: the twins take at most
			// half of what is left, shared among those still to run.
			if opts.Budget = budget() / time.Duration(2*(len(c.Twins)-i)); opts.Budget <= 0 {
				opts.Budget = time.Nanosecond
			}
		}
		res, err := SweepFunc(ctx, func(ctx context.Context, tr Trial) (harness.Result, error) { return c.Run(ctx, i, tr) }, opts)
		if err != nil {
			return nil, fmt.Errorf("explore: the twin %s: %w", t.Name, err)
		}
		if res.Stopped == StoppedInterrupted {
			return nil, fmt.Errorf("explore: the twin %s: interrupted after %d of %d runs", t.Name, res.Runs, c.Runs)
		}
		m := judge.Measured(t.Name, t.Broken, res.Runs, res.Violated)
		m.Omitted = t.Omitted
		out[i] = m
	}
	return out, nil
}

// plan measures the twins of opts.Calibrate and chooses the sweep's
// seeds from them: as many as the confidence asks, at most those of
// opts.Seeds; without a confidence, opts.Seeds.
func plan(ctx context.Context, opts *Options, budget func() time.Duration) (*judge.Calibration, error) {
	c := *opts.Calibrate
	p := opts.Parallel
	twins, err := c.Measure(ctx, opts.Seeds.First, p, budget)
	if err != nil {
		return nil, err
	}
	if c.Confidence <= 0 {
		return &judge.Calibration{Twins: twins, Reached: true, Why: fmt.Sprintf("the seeds given (%s)", opts.Seeds)}, nil
	}
	limit := 0
	if !opts.Seeds.Unbounded() {
		limit = int(min(opts.Seeds.Len(), 1<<30))
	}
	cal := judge.Plan(twins, c.Confidence, limit)
	if cal.Reached || limit > 0 {
		opts.Seeds.Last = opts.Seeds.First + uint64(cal.Seeds) - 1
	} else {
		cal.Why += "; the sweep runs until its budget ends"
	}
	return &cal, nil
}

// calibrate gives the sweep's result its calibration for the runs it
// made, and the verdict the calibration allows (judge.Calibration.Gate).
func (r *Result) calibrate(cal *judge.Calibration) {
	if cal == nil {
		return
	}
	cal.For(r.Runs - r.Interrupted)
	r.Calibration = cal
	r.Verdict, r.Reason = cal.Gate(r.Verdict, r.Reason)
}

// ForOneRun measures the twins for a single run of the configuration
// rather than a sweep: each twin runs c.Runs times, seeds 1 on, one at a
// time, and the calibration states what one run (Seeds 1) was likely to
// catch.
func (c *Calibrate) ForOneRun(ctx context.Context) (*judge.Calibration, error) {
	twins, err := c.Measure(ctx, 1, 1, nil)
	if err != nil {
		return nil, err
	}
	return &judge.Calibration{Twins: twins, Seeds: 1, Reached: true}, nil
}
