package main

import (
	"context"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/fencecheck/fencecheck/explore"
	"github.com/fencecheck/fencecheck/harness"
	"github.com/fencecheck/fencecheck/judge"
	targetspec "github.com/fencecheck/fencecheck/targets/spec"
	"github.com/fencecheck/fencecheck/workload"
)

// calibration is the explore.Calibrate of f's configuration: its runs
// against the target's twins (targetspec.Spec.Twins), each a run as f
// makes it with the twin as its target, stored, when it violates, under
// <store>/twins; stop stops the twins.
func (f *runFlags) calibration(cmd *cobra.Command, runs int, confidence float64) (c *explore.Calibrate, stop func(), err error) {
	_, s, err := f.faults()
	if err != nil {
		return nil, nil, err
	}
	twins, err := s.Twins()
	if err != nil {
		return nil, nil, err
	}
	c = &explore.Calibrate{Runs: runs, Confidence: confidence}
	for i := range twins {
		_, omitted, err := twins[i].Faults(f.nemesis)
		if err != nil {
			_ = targetspec.CloseTwins(twins)
			return nil, nil, err
		}
		c.Twins = append(c.Twins, judge.Twin{Name: twins[i].Name, Broken: twins[i].Broken, Omitted: omitted})
	}
	c.Run = func(ctx context.Context, i int, tr explore.Trial) (harness.Result, error) {
		g := *f
		if g.clientStrategy == "" { // audit takes no --client-strategy: its twins fence
			g.clientStrategy = workload.Fencing.String()
		}
		g.seed, g.store, g.name, g.noProgress, g.metrics, g.junit = tr.Seed, filepath.Join(f.store, "twins"), "twin-"+twins[i].Name, true, metricsFlags{}, ""
		return runOnce(ctx, cmd, g, once{keep: harness.KeepViolations, twin: &twins[i], command: func(harness.Config) string { return "" }})
	}
	return c, func() { _ = targetspec.CloseTwins(twins) }, nil
}

// measureTwins runs run --calibrate's twins, seeds 1 to --calibrate; nil
// without the flag.
func (f *runFlags) measureTwins(ctx context.Context, cmd *cobra.Command) (*judge.Calibration, error) {
	if f.calibrate <= 0 {
		return nil, nil
	}
	c, stop, err := f.calibration(cmd, f.calibrate, 0)
	if err != nil {
		return nil, err
	}
	defer stop()
	return c.ForOneRun(ctx)
}
