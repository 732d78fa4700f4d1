package harness

import (
	"context"
	"fmt"
	"os"

	"github.com/fencecheck/fencecheck/judge"
)

// Detection is what SeedsToDetection found.
type Detection struct {
	// Runs is how many seeds were run, the violated one included.
	Runs int
	// Found says a run was VIOLATED. Seed and Result are the last run's:
	// the violated one's when Found.
	Found  bool
	Seed   uint64
	Result Result
}

// SeedsToDetection runs the seeds first, first+1, … until one run is
// VIOLATED or limit runs were made, and says how many it took: the
// measure of how hard a receiver's defect is to find in a given
// configuration and task order (Config.Runtime.TaskOrder), which a table of time
// to detection is made of. Calling it again from the seed after the one
// found gives the next gap, and many gaps a distribution.
//
// configFor makes each run's configuration, with a target and faults of
// its own: a memory target keeps what the previous run wrote, and a fault
// is switched on and off by the run it is attached to, so neither may be
// shared between runs, one after another or at once. SeedsToDetection
// sets the seed, and makes every run deterministic (a run on the real
// clock would not repeat, and its time to detection would say nothing of
// the seed), without HTML report or shrinking. Each run's directory is
// removed when the next run begins: only the last run, the violated one
// if any, stays in the store. INCONCLUSIVE runs count as runs that did
// not detect.
func SeedsToDetection(ctx context.Context, configFor func(seed uint64) (Config, error), first uint64, limit int) (Detection, error) {
	var d Detection
	for i := range limit {
		if err := ctx.Err(); err != nil {
			return d, err
		}
		if d.Result.Dir != "" {
			if err := os.RemoveAll(d.Result.Dir); err != nil {
				return d, fmt.Errorf("remove the run of seed %d: %w", d.Seed, err)
			}
		}
		seed := first + uint64(i)
		cfg, err := configFor(seed)
		if err != nil {
			return d, fmt.Errorf("configure the run of seed %d: %w", seed, err)
		}
		cfg.Runtime.Seed, cfg.Runtime.Deterministic, cfg.Store.NoReport, cfg.Gates.ShrinkTimeout, cfg.Output.Progress = seed, true, true, 0, nil
		res, err := Run(ctx, cfg)
		if err != nil {
			return d, fmt.Errorf("seed %d: %w", seed, err)
		}
		d.Runs, d.Seed, d.Result = i+1, seed, res
		if res.Verdict == judge.Violated {
			d.Found = true
			return d, nil
		}
	}
	return d, nil
}
