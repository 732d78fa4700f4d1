package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/fencecheck/fencecheck/audit"
	"github.com/fencecheck/fencecheck/explore"
	"github.com/fencecheck/fencecheck/harness"
	"github.com/fencecheck/fencecheck/internal/redact"
	"github.com/fencecheck/fencecheck/model"
	"github.com/fencecheck/fencecheck/report"
	"github.com/fencecheck/fencecheck/targets"
	"github.com/fencecheck/fencecheck/verify"
)

// auditOnly are audit's own flags, which the line that repeats one of
// its runs (fencecheck run) leaves out.
var auditOnly = []string{"budget", "seeds", "parallel", "confidence"}

type auditFlags struct {
	run        runFlags
	budget     time.Duration
	seeds      int
	parallel   int
	junit      string
	confidence float64
}

func newAuditCommand() *cobra.Command {
	var f auditFlags
	cmd := &cobra.Command{
		Use:   "audit --target SPEC [--leases SPEC] [--exec CMD] [--budget 15m]",
		Short: "The article's adoption checklist as one command: the issuer, its sequence, the enforcement point, the paused-worker test",
		Long:  help("audit"),
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			f.run.noteChanged(cmd)
			if !cmd.Flags().Changed("nemesis") && f.run.target.exec.command != "" {
				f.run.nemesis = "pause,delay,kill" // a receiver fencecheck started is crashed too
			}
			return f.run.target.scrub(runAudit(cmd.Context(), cmd, f))
		},
	}
	f.run.register(cmd.Flags(), cmdAudit)
	d := audit.DefaultOptions()
	fl := cmd.Flags()
	fl.DurationVar(&f.budget, "budget", d.Budget, "bound the whole audit (0: none); the steps share it: the issuer's battery 10 %, the receiver's 20 %, the paused-worker test 55 %, the fixes 15 %, and a step that ends early leaves its time to the next")
	fl.IntVar(&f.seeds, "seeds", d.Seeds, "run the paused-worker test for at most this many seeds")
	fl.IntVar(&f.parallel, "parallel", d.Parallel, "runs of the paused-worker test at once")
	fl.Float64Var(&f.confidence, "confidence", d.Confidence, "calibrate the paused-worker test on twins of the target with planted bugs and run seeds until each would have been caught with this probability, at most --seeds (0: no calibration; see docs/audit.md)")
	fl.StringVar(&f.junit, "junit", "", "also write the audit as JUnit XML to this file (one test case per step)")
	return cmd
}

func runAudit(ctx context.Context, cmd *cobra.Command, f auditFlags) error {
	if err := f.run.target.required(); err != nil {
		return err
	}
	if _, _, err := f.run.faults(); err != nil { // refused once, before any step
		return err
	}
	policy, err := parsePolicy(f.run.policy)
	if err != nil {
		return err
	}
	issuer, err := parseLeases(f.run.leases)
	if err != nil {
		return err
	}
	battery := verify.DefaultOptions()
	battery.Policy, battery.RequireExclusive = policy, len(f.run.require) > 0
	s, err := f.run.target.parse(verify.Workers, policy == model.AcceptEqual)
	if err != nil {
		return err
	}
	o := audit.DefaultOptions()
	o.Name, o.Issuer, o.Battery, o.Seeds, o.Parallel, o.Budget, o.Store = s.Name(), issuer, battery, f.seeds, f.parallel, f.budget, f.run.store
	o.Command = reproduceLine(cmd, map[string]string{"leases": redact.Spec(f.run.leases), "nemesis": f.run.nemesis, "budget": f.budget.String()})
	o.Receiver = func(ctx context.Context) (targets.Target, func() error, error) {
		t, err := s.Open(ctx, nil)
		if err != nil {
			return nil, nil, err
		}
		o.Battery.MaxToken = t.MaxToken
		return t.Target, t.Close, nil
	}
	if o.Confidence = f.confidence; f.confidence > 0 {
		c, stop, err := f.run.calibration(cmd, explore.DefaultCalibrationRuns, f.confidence)
		if err != nil {
			return err
		}
		defer stop()
		o.Calibrate = c
	}
	stderr := cmd.ErrOrStderr()
	o.Run = func(ctx context.Context, r audit.RunSpec) (harness.Result, error) {
		g := f.run
		g.seed, g.clientStrategy, g.store, g.name, g.noProgress = r.Seed, r.Strategy.String(), r.Store, r.Name, true
		res, err := runOnce(ctx, cmd, g, once{keep: r.Keep, command: func(cfg harness.Config) string {
			return runLine(flagLine("audit", cmd.Flags(), effectiveRunFlags(cfg, g), auditOnly, []string{"seed"}), r.Strategy)
		}})
		warn(stderr, res.Warnings)
		return res, err
	}
	rep, err := audit.Run(ctx, o)
	if err != nil {
		return err
	}
	if f.junit != "" {
		if err := report.WriteJUnitFile(f.junit, rep.JUnit()); err != nil {
			return err
		}
	}
	write := rep.WriteText
	if f.run.json {
		write = rep.WriteJSON
	}
	if err := write(cmd.OutOrStdout()); err != nil {
		return fmt.Errorf("print the audit: %w", err)
	}
	return exitFor(rep.Verdict)
}
