package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/fencecheck/fencecheck/harness"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/internal/files"
	"github.com/fencecheck/fencecheck/internal/redact"
	"github.com/fencecheck/fencecheck/lease"
	leasespec "github.com/fencecheck/fencecheck/lease/spec"
	"github.com/fencecheck/fencecheck/logscan"
	"github.com/fencecheck/fencecheck/model"
	"github.com/fencecheck/fencecheck/report"
	"github.com/fencecheck/fencecheck/runstore"
	"github.com/fencecheck/fencecheck/sched"
	"github.com/fencecheck/fencecheck/targets"
	"github.com/fencecheck/fencecheck/targets/process"
	sqltarget "github.com/fencecheck/fencecheck/targets/sqltarget"
	"github.com/fencecheck/fencecheck/verify"
)

type verifyFlags struct {
	target  targetFlags
	leases  string
	policy  string
	require []string
	store   string
	json    bool
	junit   string
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
  digit-boundaries      9→10, 99→100, 999→1000, 2^31, 2^32, 2^53, 2^63,
                        2^64-1: those up to the receiver's largest token
                        (--max-token, or what the target declares: 2^63-1
                        for the SQL targets), the rest not sent
  scope                 a token on one resource does not affect another
  acknowledged-writes   400 writes (8 resources at once, 50 each), each read back:
                        a receiver losing 1 acknowledged write in 50 passes
                        with probability (49/50)^400 ≈ 3e-4
  restart-durability    with --exec: 7 survives SIGKILL and restart, 6 is rejected
  receiver-log          with --exec: the receiver's output shows no panic:,
                        fatal error:, DATA RACE or --log-fail line (quoted if so)

With --leases the scenarios' tokens come from a token issuer (etcd,
redis://…, postgres://…) instead of the scripted ones; digit-boundaries
keeps its scripted tokens.

The table, a result.json and the history of every operation go to
store/verify-<target>/<time>/. Exit 0 when every required scenario passed,
1 when one failed, 2 when they passed but the receiver's log could not be
read, 3 on errors (unreachable target, bad flags).`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return f.target.scrub(runVerify(cmd.Context(), cmd, f))
		},
	}
	fl := cmd.Flags()
	f.target.register(fl)
	fl.StringVar(&f.leases, "leases", leasespec.Local, "where the scenarios' tokens come from: local (the scripted 41, 42, …), or a token issuer: etcd, etcd://HOST:PORT,…, redis[?SETTINGS], redis://…, postgres[?SETTINGS], postgres://… (see docs/leases.md)")
	fl.StringVar(&f.policy, "policy", verify.DefaultOptions().Policy.String(), "fencing policy: strict or accept-equal")
	fl.StringSliceVar(&f.require, "require", nil, "extra invariants: exclusive (old-token-first becomes required)")
	fl.StringVar(&f.store, "store", "store", "run store directory")
	fl.BoolVar(&f.json, "json", false, "print the result as JSON")
	fl.StringVar(&f.junit, "junit", "", "also write the table as JUnit XML to this file (one test case per scenario)")
	return cmd
}

func runVerify(ctx context.Context, cmd *cobra.Command, f verifyFlags) error {
	stdout := cmd.OutOrStdout()
	if err := f.target.required(); err != nil {
		return err
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
	issuer, err := parseLeases(f.leases)
	if err != nil {
		return err
	}
	child, err := f.target.child()
	if err != nil {
		return err
	}
	t, err := f.target.open(ctx, openWith{workers: verifyWorkers, acceptEqual: opts.Policy == model.AcceptEqual, child: child})
	if err != nil {
		return err
	}
	defer t.closeWarning(cmd.ErrOrStderr())
	opts.MaxToken = t.maxToken
	dir, err := runstore.Create(f.store, "verify-"+runstore.Name(t.name), time.Now())
	if err != nil {
		return err
	}
	rep, err := runBattery(ctx, battery{target: t, child: child, issuer: issuer, dir: dir, opts: opts}, cmd.ErrOrStderr())
	if err == nil {
		effective := map[string]string{"policy": f.policy, "leases": ""}
		if issuer != nil {
			effective["leases"] = redact.Spec(f.leases)
		}
		rep.Command = reproduceLine(cmd, effective)
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
		tokens := ""
		if rep.Leases != "" {
			tokens = ", tokens from " + rep.Leases
		}
		fmt.Fprintf(stdout, "verify %s (%s policy%s)\ntoken domain %s: no larger token is sent\n\n", t.name, rep.Policy, tokens, targets.DomainName(rep.MaxToken))
		if err := verify.WriteTable(stdout, outcomes); err != nil {
			return err
		}
		var quoted strings.Builder
		rep.ReceiverLog.WriteQuoted(&quoted)
		fmt.Fprint(stdout, quoted.String())
		fmt.Fprintf(stdout, "\n%s; wrote %s\nreproduce with: %s\n", verify.Summary(outcomes), dir, rep.Command)
	}
	if !rep.Passed {
		return &verdictExit{exitViolated}
	}
	if rep.ReceiverLog.Unread() {
		// Every scenario passed, but a panic or race the log shows may
		// have been missed: not a pass.
		warn(cmd.ErrOrStderr(), []string{rep.ReceiverLog.UnreadReason()})
		return &verdictExit{exitInconclusive}
	}
	return nil
}

// battery is what runBattery plays: the target, its receiver process if
// fencecheck started one, the token issuer (nil: scripted tokens), the
// run directory and the battery's options.
type battery struct {
	target *openedTarget
	child  *process.Child
	issuer lease.Issuer
	dir    string
	opts   verify.Options
}

// verifyWorkers is how many connections a target opened for the battery
// may use at once: its widest scenario, check-then-set-race, has 8
// writers.
const verifyWorkers = 10

// verifyLeaseTTL is the TTL of the leases a token issuer grants the
// scenarios: each lease is ended by the scenario (the next owner's grant,
// or the end of the scenario), long before it runs out.
const verifyLeaseTTL = 30 * time.Second

// runBattery sets the target up in the run directory, opens the token
// issuer there, plays the battery, recording its history there, and tears
// the target down; what the tear-down left behind is a warning on stderr,
// not an error.
func runBattery(ctx context.Context, b battery, stderr io.Writer) (verify.Report, error) {
	t, opts := b.target, b.opts
	if b.child != nil {
		b.child.SetLogDir(b.dir) // the receiver's output goes beside the history
	}
	if s, ok := t.target.(*sqltarget.Target); ok {
		s.UseRunDir(b.dir) // the driver's own messages: sql.log, not stderr
	}
	if s, ok := t.target.(targets.Setupper); ok {
		if err := s.Setup(ctx); err != nil {
			return verify.Report{}, fmt.Errorf("set up target %s: %w", t.name, err)
		}
	}
	teardown := func() { warn(stderr, harness.Teardown(context.WithoutCancel(ctx), t.target, t.name)) }
	rt := sched.NewReal()
	path := filepath.Join(b.dir, runstore.History)
	f, err := os.Create(path)
	if err != nil {
		teardown()
		return verify.Report{}, fmt.Errorf("create history %s: %w", path, err)
	}
	rec := histories.NewRecorder(f, histories.RecorderOptions{Clock: rt})
	opts.Recorder = rec
	leases, closeLeases := "", func() {}
	if b.issuer != nil {
		svc, err := b.issuer.Open(ctx, lease.Env{Life: ctx, Runtime: rt, Recorder: rec, TTL: verifyLeaseTTL, Dir: b.dir})
		if err != nil {
			teardown()
			_ = rec.Close()
			return verify.Report{}, fmt.Errorf("open lease issuer %s: %w", b.issuer.Name(), err)
		}
		// Closed before the recorder: nothing the issuer does after the
		// battery is part of its history.
		if c, ok := svc.(io.Closer); ok {
			closeLeases = func() {
				if err := c.Close(); err != nil {
					warn(stderr, []string{fmt.Sprintf("close lease issuer %s: %v", b.issuer.Name(), err)})
				}
			}
		}
		opts.Leases, leases = svc, b.issuer.Name()
	}
	outcomes, runErr := verify.Run(ctx, t.target, opts)
	closeLeases()
	teardown()
	if err := rec.Close(); err != nil {
		return verify.Report{}, fmt.Errorf("record history: %w", err)
	}
	if runErr != nil {
		return verify.Report{}, fmt.Errorf("verify %s: %w\n(the scenarios' history is in %s)", t.name, runErr, b.dir)
	}
	// After the receiver exited on its own, the table would be about
	// whatever answered in its place.
	if b.child != nil && b.child.Err() != nil {
		return verify.Report{}, fmt.Errorf("verify %s: %w\n(the scenarios' history is in %s)", t.name, b.child.Err(), b.dir)
	}
	rep := verify.Report{Target: t.name, Leases: leases, Policy: opts.Policy.String(), MaxToken: opts.MaxToken, Exclusive: opts.RequireExclusive,
		Dir: b.dir, Outcomes: outcomes}
	if b.child != nil {
		// Read once the receiver has stopped: its signs of a bug are a
		// row of the battery.
		rep.ReceiverLog = logscan.NewOutcome(b.child.ScanLog())
		rep.Outcomes = append(rep.Outcomes, verify.ReceiverLogRow(rep.ReceiverLog))
	}
	rep.Passed = verify.Passed(rep.Outcomes)
	return rep, nil
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
