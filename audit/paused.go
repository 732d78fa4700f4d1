package audit

import (
	"context"
	"fmt"

	"github.com/fencecheck/fencecheck/explore"
	"github.com/fencecheck/fencecheck/harness"
	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/workload"
)

// pausedWorkerStep repeats the article's paused-worker test against the
// real receiver: a sweep of seeded runs under the caller's faults (pause
// and delay, and a crash of a receiver fencecheck started), each judged,
// judged together by the sweep's rule. It runs Options.Seeds seeds, or
// until its window of the budget ends: then it is cut, saying how many
// it ran. The runs that violated are kept in the audit's directory, with
// the line that repeats each.
func pausedWorkerStep(ctx context.Context, o *Options, dir string, b *budget) (Step, judge.Totals, error) {
	s := newStep(StepPausedWorker)
	_, cancel, cut := stepContext(ctx, b, &s)
	cancel() // the sweep's own budget bounds it: a run under way finishes
	if cut {
		return s, judge.Totals{}, nil
	}
	opts := explore.DefaultOptions()
	opts.Seeds, opts.Parallel, opts.Store, opts.Name = explore.Seeds{First: 1, Last: uint64(o.Seeds)}, o.Parallel, dir, "paused-worker"
	if left, bounded := b.window(StepPausedWorker); bounded {
		opts.Budget = left
	}
	if o.Confidence > 0 {
		c := *o.Calibrate
		c.Confidence = o.Confidence
		if c.Runs < 1 {
			c.Runs = explore.DefaultCalibrationRuns
		}
		opts.Calibrate = &c
	}
	res, err := explore.SweepFunc(ctx, func(ctx context.Context, tr explore.Trial) (harness.Result, error) {
		return o.Run(ctx, RunSpec{Seed: tr.Seed, Strategy: workload.Fencing, Store: dir, Keep: harness.KeepViolations})
	}, opts)
	if err != nil {
		return s, res.Totals, fmt.Errorf("the paused-worker test: %w", err)
	}
	s.judged(res.Verdict, res.Reason)
	if res.Stopped == explore.StoppedBudget && res.Verdict != judge.Violated {
		s.Cut = fmt.Sprintf("the budget ended the sweep after %d of its %d seeds (its share of the budget: %s)", res.Runs, o.Seeds, s.Budget)
	}
	t := res.Totals
	s.Evidence = []string{fmt.Sprintf("%d run%s: %d held, %d violated, %d inconclusive", res.Runs, pluralS(res.Runs), res.Held, res.Violated, res.Inconclusive)}
	if t.Runs > 0 { // a sweep that stopped at its first violation counted no run to its end
		s.Evidence = append(s.Evidence, fmt.Sprintf("%d stale writes (%d rejected, %d accepted, %d unknown), %d concurrent writes on one resource, in %d runs checked to their end",
			t.StaleWrites, t.StaleRejected, t.StaleAccepted, t.StaleUnknown, t.ConcurrentWrites, t.Runs))
	}
	if res.Verdict == judge.Held {
		if p := judge.PowerOf(t); p.StaleTested > 0 {
			s.Evidence = append(s.Evidence, p.SweepSentence())
		}
	}
	s.Evidence = append(s.Evidence, calibrationEvidence(res)...)
	if res.Verdict == judge.Held && res.Calibration == nil {
		// A pass that cannot say how likely it was to find the bug says
		// so, rather than let the bound on stale writes stand for it.
		s.Evidence = append(s.Evidence, "not calibrated: no confidence was asked for, so how likely these runs were to catch a receiver broken like the planted-bug twins was not measured (docs/audit.md: choosing the confidence)")
	}
	for _, f := range res.Failures {
		s.Evidence = append(s.Evidence, fmt.Sprintf("seed %d violated: %s; repeat it with: %s", f.Seed, f.Result.Reason, f.Result.Config.Command))
		if f.Result.Dir != "" {
			s.Runs = append(s.Runs, rel(dir, f.Result.Dir))
		}
	}
	if res.Dir != "" {
		s.Runs = append(s.Runs, rel(dir, res.Dir))
	}
	return s, t, nil
}

// fixesStep runs the article's tempting fixes on the same workload, for
// context: a longer lease, renewal, a check before the write, and no
// fencing at all, beside fencing. It informs; it does not judge the
// receiver, whose fencing the other steps judged.
func fixesStep(ctx context.Context, o *Options, dir string, b *budget) (Step, error) {
	s := newStep(StepFixes)
	ctx, cancel, cut := stepContext(ctx, b, &s)
	defer cancel()
	if cut {
		return s, nil
	}
	table, err := explore.CompareFixes(ctx, func(ctx context.Context, st workload.Strategy) (harness.Result, error) {
		return o.Run(ctx, RunSpec{Seed: 1, Strategy: st, Store: dir, Name: "fix-" + st.String(), Keep: harness.KeepAll})
	})
	for _, r := range table.Rows {
		if r.NotRun != "" {
			s.Evidence = append(s.Evidence, fmt.Sprintf("%s: not run: %s", r.Strategy, r.NotRun))
			continue
		}
		s.Evidence = append(s.Evidence, fmt.Sprintf("%s: %s, %d stale writes, %d accepted", r.Strategy, r.Verdict, r.StaleWrites, r.StaleAccepted))
		if r.Dir != "" {
			s.Runs = append(s.Runs, rel(dir, r.Dir))
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			s.Result, s.Cut = "cut", fmt.Sprintf("the budget ended it after %d of the %d strategies (its share of the budget: %s)",
				len(table.Rows), len(workload.Strategies()), s.Budget)
			s.Reason = s.Cut
			return s, nil
		}
		return s, fmt.Errorf("the tempting fixes: %w", err)
	}
	s.Reason = "the article's fixes without fencing, on the same workload: what each lets through"
	return s, nil
}

// limitsStep says what fencing does not cover, from the article, with
// what the paused-worker test saw of each.
func limitsStep(t judge.Totals) Step {
	s := newStep(StepLimits)
	s.Reason = "what a pass of fencing does not promise"
	s.Evidence = []string{
		fmt.Sprintf("a write that reaches the resource before the newer owner's first write is accepted, as fencing allows (the article's last replay line): the runs saw %d", t.OldTokenFirst),
		fmt.Sprintf("an equal token cannot tell a retry from a duplicate: a repeat of the current token is rejected under the strict policy and accepted under accept-equal; the runs sent %d", t.EqualTokenRepeats),
		fmt.Sprintf("an operation whose answer never came may or may not have taken effect: the runs had %d; reconcile them", t.UnknownOutcomes),
		"side effects outside the resource (a message sent, a payment made) are not fenced by the resource's token: not tested",
		"an external service that takes no token cannot reject an old owner: use its own duplicate control: not tested",
	}
	return s
}

// pluralS is the "s" a count of n things takes: "1 run", "3 runs".
func pluralS(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// calibrationEvidence is what the twins of a calibrated paused-worker
// test measured, how many seeds that asked for and why, and, unless a
// seed violated, how likely the runs were to catch each twin.
func calibrationEvidence(res explore.Result) []string {
	c := res.Calibration
	if c == nil {
		return nil
	}
	var out []string
	for _, t := range c.Twins {
		out = append(out, fmt.Sprintf("twin %s: %s", t.Name, t.Measure()))
	}
	out = append(out, "seeds: "+c.Why)
	if res.Verdict != judge.Violated {
		out = append(out, c.Sentences(fmt.Sprintf("these %d runs", c.Seeds))...)
	}
	return out
}
