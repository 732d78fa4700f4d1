package fencetest

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/fencecheck/fencecheck/audit"
	"github.com/fencecheck/fencecheck/harness"
	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/targets"
)

// Audit audits a receiver from go test as fencecheck audit does: the
// token issuer and its battery, the receiver's battery, the paused-worker
// test repeated over o.Seeds seeds, the tempting fixes, and what fencing
// does not cover (see docs/audit.md). newTarget opens a fresh receiver:
// the battery takes one, and so does every run (a run in the simulation
// names its resources from its seed and may not share one). cfg is the
// run every seed repeats, as Config makes it; its Leases.Issuer, when
// set, is the issuer under audit, else o.Issuer is, and the runs then
// take their tokens from it on the real clock.
//
// The runs are on virtual time where the target allows: in the
// deterministic simulation when cfg is (a memory target), and each in a
// testing/synctest bubble of its own when cfg.Runtime.VirtualClock is set
// (an in-process http.Handler through HandlerTarget; see RunSynctest).
// An issuer of the service's own talks to its servers on the real clock,
// so with one the runs are real-time. The batteries are real-time.
//
// Audit fails t unless the audit held, logging the audit's report, and
// returns it. An audit with fencecheck's own issuer (no issuer given) is
// no pass: the issuer the service will use was not tested.
func Audit(t T, newTarget func() (targets.Target, error), cfg harness.Config, o audit.Options) audit.Report {
	t.Helper()
	if o.Issuer == nil {
		o.Issuer = cfg.Leases.Issuer
	}
	if o.Name == "" {
		o.Name = cfg.Target.Name
	}
	if o.Store == "" || o.Store == audit.DefaultOptions().Store {
		o.Store = cfg.Store.Dir
	}
	o.Receiver = func(context.Context) (targets.Target, func() error, error) {
		tgt, err := newTarget()
		return tgt, func() error { return nil }, err
	}
	o.Run = func(ctx context.Context, r audit.RunSpec) (harness.Result, error) {
		tgt, err := newTarget()
		if err != nil {
			return harness.Result{}, fmt.Errorf("open the receiver: %w", err)
		}
		c := cfg
		c.Target.Receiver, c.Leases.Issuer = tgt, o.Issuer
		if o.Issuer != nil {
			c.Runtime.Deterministic = false // a real issuer runs on real time only
		}
		c.Runtime.Seed, c.Workload.Strategy, c.Store.Dir, c.Store.RunName, c.Store.Keep = r.Seed, r.Strategy, r.Store, r.Name, r.Keep
		c.Output.Command = reproduceLine(t.Name(), r.Seed)
		if c.Runtime.VirtualClock && o.Issuer == nil {
			return runInBubble(t, c)
		}
		c.Runtime.VirtualClock = false
		return harness.Run(ctx, c)
	}
	rep, err := audit.Run(t.Context(), o)
	if err != nil {
		t.Fatalf("fencetest: audit of %s: %v", o.Name, err)
		return rep
	}
	var text strings.Builder
	_ = rep.WriteText(&text) // a strings.Builder takes every write
	if rep.Verdict != judge.Held {
		t.Errorf("fencetest: audit of %s %s: %s\n%s", o.Name, rep.Verdict, rep.Reason, text.String())
		return rep
	}
	t.Logf("fencetest: audit of %s held: %s; report: %s", o.Name, rep.Reason, filepath.Join(rep.Dir, audit.PageFile))
	return rep
}
