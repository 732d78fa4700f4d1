package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/fencecheck/fencecheck/harness"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/internal/files"
	"github.com/fencecheck/fencecheck/report"
	"github.com/fencecheck/fencecheck/runstore"
	"github.com/fencecheck/fencecheck/targets"
	"github.com/fencecheck/fencecheck/targets/process"
	sqltarget "github.com/fencecheck/fencecheck/targets/sqltarget"
	"github.com/fencecheck/fencecheck/verify"
)

type verifyFlags struct {
	target  string
	policy  string
	require []string
	store   string
	json    bool
	junit   string
	http    httpFlags
}

func newVerifyCommand() *cobra.Command {
	var f verifyFlags
	cmd := &cobra.Command{
		Use:   "verify --target SPEC",
		Short: "Run the conformance battery: named, deterministic scenarios, one hazard each",
		Long: `verify plays a battery of scripted scenarios against a target, each on fresh
resources, and prints a table (scenario | expected | observed | result):

  stale-after-newer     the article: 42 accepted, then 41 must be rejected
  equal-token-repeat    a repeat of 42: rejected (strict); either, read back (accept-equal)
  old-token-first       41 arrives before 42: allowed by fencing (info), a
                        failure only under --require exclusive
  check-then-set-race   8 writers race in rounds; the highest must be stored
  two-first-writers     two writers create a missing resource at once
  digit-boundaries      9→10, 99→100, 999→1000, 2^53, 2^63, 2^64-1
  scope                 a token on one resource does not affect another
  restart-durability    with --exec: 7 survives SIGKILL and restart, 6 is rejected

The table, a result.json and the history of every operation go to
store/verify-<target>/<time>/. Exit 0 when every required scenario passed,
1 when one failed, 3 on errors (unreachable target, bad flags).`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return f.http.scrub(f.target, runVerify(cmd.Context(), cmd, f))
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.target, "target", "", "the receiver under test (memory://NAME, http://HOST:PORT)")
	fl.StringVar(&f.policy, "policy", verify.DefaultOptions().Policy.String(), "fencing policy: strict or accept-equal")
	fl.StringSliceVar(&f.require, "require", nil, "extra invariants: exclusive (old-token-first becomes required)")
	fl.StringVar(&f.store, "store", "store", "run store directory")
	fl.BoolVar(&f.json, "json", false, "print the result as JSON")
	fl.StringVar(&f.junit, "junit", "", "also write the table as JUnit XML to this file (one test case per scenario)")
	f.http.register(fl)
	return cmd
}

func runVerify(ctx context.Context, cmd *cobra.Command, f verifyFlags) error {
	stdout := cmd.OutOrStdout()
	if f.target == "" {
		return &usageError{fmt.Errorf("--target: required")}
	}
	opts := verify.DefaultOptions()
	opts.Terms = verifyTerms{}
	var err error
	if opts.Policy, err = parsePolicy(f.policy); err != nil {
		return err
	}
	if opts.RequireExclusive, err = requiresExclusive(f.require); err != nil {
		return err
	}
	child, err := f.http.child(f.target)
	if err != nil {
		return err
	}
	t, err := openTarget(ctx, f.target, targetOptions{http: f.http, workers: 10, child: child, sql: sqltarget.DefaultOptions()})
	if err != nil {
		return err
	}
	defer t.closeWarning(cmd.ErrOrStderr())
	dir, err := runstore.Create(f.store, "verify-"+runstore.Name(t.name), time.Now())
	if err != nil {
		return err
	}
	rep, err := runBattery(ctx, t, child, dir, opts, cmd.ErrOrStderr())
	if err == nil {
		rep.Command = reproduceLine(cmd, map[string]string{"policy": f.policy})
		err = writeVerifyFiles(dir, rep)
	}
	if err != nil {
		// A battery that could not start leaves no directory; one that
		// recorded something keeps it, with the error beside it.
		return runstore.Fail(f.store, dir, err)
	}
	if err := runstore.Publish(f.store, dir); err != nil {
		return err
	}
	outcomes := rep.Outcomes
	if f.junit != "" {
		if err := report.WriteJUnitFile(f.junit, verify.JUnit(rep)); err != nil {
			return err
		}
	}
	if f.json {
		if err := verify.WriteJSON(stdout, rep); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(stdout, "verify %s (%s policy)\n\n", t.name, rep.Policy)
		if err := verify.WriteTable(stdout, outcomes); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "\n%s; wrote %s\nreproduce with: %s\n", verify.Summary(outcomes), dir, rep.Command)
	}
	if !rep.Passed {
		return &verdictExit{exitViolated}
	}
	return nil
}

// runBattery sets the target up in the run directory dir, plays the
// battery, recording its history there, and tears the target down; what
// the tear-down left behind is a warning on stderr, not an error.
func runBattery(ctx context.Context, t *openedTarget, child *process.Child, dir string, opts verify.Options, stderr io.Writer) (verify.Report, error) {
	if child != nil {
		child.SetLogDir(dir) // the receiver's output goes beside the history
	}
	if s, ok := t.target.(*sqltarget.Target); ok {
		s.UseRunDir(dir) // the driver's own messages: sql.log, not stderr
	}
	if s, ok := t.target.(targets.Setupper); ok {
		if err := s.Setup(ctx); err != nil {
			return verify.Report{}, fmt.Errorf("set up target %s: %w", t.name, err)
		}
	}
	rec, err := histories.CreateRecorder(filepath.Join(dir, runstore.History), histories.RecorderOptions{})
	if err != nil {
		warn(stderr, harness.Teardown(context.WithoutCancel(ctx), t.target, t.name))
		return verify.Report{}, err
	}
	opts.Recorder = rec
	outcomes, runErr := verify.Run(ctx, t.target, opts)
	warn(stderr, harness.Teardown(context.WithoutCancel(ctx), t.target, t.name))
	if err := rec.Close(); err != nil {
		return verify.Report{}, fmt.Errorf("record history: %w", err)
	}
	if runErr != nil {
		return verify.Report{}, runErr
	}
	// After the receiver exited on its own, the table would be about
	// whatever answered in its place.
	if child != nil && child.Err() != nil {
		return verify.Report{}, fmt.Errorf("verify %s: %w\n(the scenarios' history is in %s)", t.name, child.Err(), dir)
	}
	return verify.Report{Target: t.name, Policy: opts.Policy.String(), Exclusive: opts.RequireExclusive,
		Passed: verify.Passed(outcomes), Dir: dir, Outcomes: outcomes}, nil
}

func writeVerifyFiles(dir string, rep verify.Report) error {
	for name, write := range map[string]func(io.Writer) error{
		runstore.Table:  func(w io.Writer) error { return verify.WriteTable(w, rep.Outcomes) },
		runstore.Result: func(w io.Writer) error { return verify.WriteJSON(w, rep) },
	} {
		if err := files.Write(filepath.Join(dir, name), "verify result", write); err != nil {
			return err
		}
	}
	return nil
}
