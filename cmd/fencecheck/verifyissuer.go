package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/internal/redact"
	"github.com/fencecheck/fencecheck/lease"
	"github.com/fencecheck/fencecheck/report"
	"github.com/fencecheck/fencecheck/runstore"
	"github.com/fencecheck/fencecheck/sched"
	"github.com/fencecheck/fencecheck/verify"
)

type verifyIssuerFlags struct {
	leases   string
	leaseTTL time.Duration
	store    string
	json     bool
	junit    string
}

func newVerifyIssuerCommand() *cobra.Command {
	var f verifyIssuerFlags
	cmd := &cobra.Command{
		Use:   "verify-issuer --leases SPEC",
		Short: "Run the token issuer's battery: does its sequence only grow, across what it survives?",
		Long: `verify-issuer plays a battery of scenarios against a token issuer, each on
fresh resources, and checks the issuer's own invariant, which fencing rests
on: per resource, every grant's token is strictly greater than every
earlier grant's, and no token is granted twice. It prints the same table as
verify:

  successive-grants        50 grants on one resource
  grants-across-resources  interleaved grants on 3 resources
  contended-grants         4 workers contend for one resource
  grant-after-revoke       the holder's lease is revoked, a waiter takes over
  grant-after-ttl          the holder's lease runs out by its TTL
  grant-after-restart      5 grants, the issuer's server (its leader, if it
                           has one) SIGKILLed and started again, 5 more;
                           only for a server fencecheck started itself
                           (redis, postgres, etcd with its members in
                           processes), skipped otherwise
  grant-after-failover     the leader SIGKILLed: 5 grants from the others
                           while it is down, 5 after it rejoined; only with
                           a leader among 3 or more servers, skipped
                           otherwise
  token-boundaries         tokens across 2^31, 2^32, 2^53 and 2^63-1, where
                           the issuer can start them there

The table, a result.json and the history of the grants go to
store/verify-issuer-<issuer>/<time>/. Exit 0 when every scenario passed,
1 when one failed, 3 on errors (bad flags, an issuer that cannot be
opened).`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runVerifyIssuer(cmd.Context(), cmd, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.leases, "leases", "", "the token issuer under test: local, etcd, etcd://HOST:PORT,…, redis[?SETTINGS] (a private redis-server), redis://…, postgres[?SETTINGS] (a private cluster), postgres://… (see docs/leases.md)")
	fl.DurationVar(&f.leaseTTL, "lease-ttl", verify.DefaultIssuerOptions().TTL, "the TTL of the leases the issuer grants (grant-after-ttl waits for one to run out)")
	fl.StringVar(&f.store, "store", "store", "run store directory")
	fl.BoolVar(&f.json, "json", false, "print the result as JSON")
	fl.StringVar(&f.junit, "junit", "", "also write the table as JUnit XML to this file (one test case per scenario)")
	return cmd
}

func runVerifyIssuer(ctx context.Context, cmd *cobra.Command, f verifyIssuerFlags) error {
	stdout := cmd.OutOrStdout()
	if f.leases == "" {
		return &usageError{fmt.Errorf("--leases: required")}
	}
	if f.leaseTTL <= 0 {
		return &usageError{fmt.Errorf("--lease-ttl: %v: must be positive", f.leaseTTL)}
	}
	issuer, err := parseLeases(f.leases)
	if err != nil {
		return err
	}
	name := "local"
	if issuer != nil {
		name = issuer.Name()
	}
	dir, err := runstore.Create(f.store, "verify-issuer-"+runstore.Name(redact.Spec(f.leases)), time.Now())
	if err != nil {
		return err
	}
	rep, err := runIssuerBattery(ctx, issuer, f.leaseTTL, dir)
	if err == nil {
		rep.Target = name
		rep.Command = reproduceLine(cmd, map[string]string{"leases": redact.Spec(f.leases), "lease-ttl": f.leaseTTL.String()})
		err = writeVerifyFiles(dir, rep)
	}
	if err != nil {
		return runstore.Fail(f.store, dir, err)
	}
	if err := runstore.Publish(f.store, dir); err != nil {
		return err
	}
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
		fmt.Fprintf(stdout, "verify-issuer %s\n\n", name)
		if err := verify.WriteTable(stdout, rep.Outcomes); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "\n%s; wrote %s\nreproduce with: %s\n", verify.Summary(rep.Outcomes), dir, rep.Command)
	}
	if !rep.Passed {
		return &verdictExit{exitViolated}
	}
	return nil
}

// runIssuerBattery opens the issuer (nil: the run's own lease service on
// the real clock) with its events recorded in dir, and plays the battery.
func runIssuerBattery(ctx context.Context, issuer lease.Issuer, ttl time.Duration, dir string) (verify.Report, error) {
	rt := sched.NewReal()
	path := filepath.Join(dir, runstore.History)
	f, err := os.Create(path)
	if err != nil {
		return verify.Report{}, fmt.Errorf("create history %s: %w", path, err)
	}
	rec := histories.NewRecorder(f, histories.RecorderOptions{Clock: rt})
	var svc lease.Service = lease.NewLocal(ctx, rt, rec, ttl)
	if issuer != nil {
		if svc, err = issuer.Open(ctx, lease.Env{Life: ctx, Runtime: rt, Recorder: rec, TTL: ttl, Dir: dir}); err != nil {
			_ = rec.Close()
			return verify.Report{}, fmt.Errorf("open lease issuer %s: %w", issuer.Name(), err)
		}
	}
	opts := verify.DefaultIssuerOptions()
	opts.TTL, opts.Recorder = ttl, rec
	outcomes, runErr := verify.RunIssuer(ctx, svc, opts)
	var closeErr error
	if c, ok := svc.(io.Closer); ok {
		closeErr = c.Close()
	}
	if err := rec.Close(); err != nil {
		return verify.Report{}, fmt.Errorf("record history: %w", err)
	}
	if runErr != nil {
		return verify.Report{}, runErr
	}
	if closeErr != nil {
		return verify.Report{}, fmt.Errorf("close lease issuer: %w (the grants' history is in %s)", closeErr, dir)
	}
	return verify.Report{Battery: "issuer", Passed: verify.Passed(outcomes), Dir: dir, Outcomes: outcomes}, nil
}
