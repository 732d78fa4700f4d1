package main

import (
	"context"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fencecheck/fencecheck/internal/redact"
	"github.com/fencecheck/fencecheck/judge"
	leasespec "github.com/fencecheck/fencecheck/lease/spec"
	"github.com/fencecheck/fencecheck/model"
	"github.com/fencecheck/fencecheck/report"
	"github.com/fencecheck/fencecheck/runstore"
	"github.com/fencecheck/fencecheck/verify"
)

type verifyFlags struct {
	target         targetFlags
	leases, policy string
	require        []string
	out            batteryOutput
}

func newVerifyCommand() *cobra.Command {
	var f verifyFlags
	cmd := &cobra.Command{
		Use:   "verify --target SPEC",
		Short: "Run the conformance battery: named, deterministic scenarios, one hazard each",
		Long:  help("verify"),
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return f.target.scrub(runVerify(cmd.Context(), cmd, f))
		},
	}
	fl := cmd.Flags()
	f.target.register(fl)
	fl.StringVar(&f.leases, "leases", leasespec.Local, "where the scenarios' tokens come from: local (the scripted 41, 42, …), or a token issuer: etcd, etcd://HOST:PORT,…, redis[?SETTINGS], redis://…, postgres[?SETTINGS], postgres://… (see docs/leases.md)")
	fl.StringVar(&f.policy, "policy", verify.DefaultOptions().Policy.String(), "fencing policy: strict or accept-equal")
	fl.StringSliceVar(&f.require, "require", nil, "extra invariants: exclusive (old-token-first becomes required)")
	f.out.register(fl)
	return cmd
}

func runVerify(ctx context.Context, cmd *cobra.Command, f verifyFlags) error {
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
	s, err := f.target.parse(verify.Workers, opts.Policy == model.AcceptEqual)
	if err != nil {
		return err
	}
	t, err := s.Open(ctx, nil)
	if err != nil {
		return usage(err)
	}
	defer closeTarget(t, cmd.ErrOrStderr())
	opts.MaxToken = t.MaxToken
	effective := map[string]string{"policy": f.policy, "leases": ""}
	if issuer != nil {
		effective["leases"] = redact.Spec(f.leases)
	}
	return f.out.play(cmd, "verify-"+runstore.Name(t.Name), effective, func(dir string) (verify.Report, error) {
		return verify.RunBattery(ctx, verify.Battery{Target: t.Target, Name: t.Name, Issuer: issuer, Dir: dir, Options: opts,
			Warn: func(w string) { warn(cmd.ErrOrStderr(), []string{w}) }})
	})
}

// batteryOutput are the flags of verify and verify-issuer that say where
// a battery's report goes.
type batteryOutput struct {
	store, junit string
	json         bool
}

func (o *batteryOutput) register(fl *pflag.FlagSet) {
	fl.StringVar(&o.store, "store", "store", "run store directory")
	fl.BoolVar(&o.json, "json", false, "print the result as JSON")
	fl.StringVar(&o.junit, "junit", "", "also write the table as JUnit XML to this file (one test case per scenario)")
}

// play plays a battery in a run directory of its own (verify.Store),
// with the line that repeats it (the flags with their effective values),
// writes --junit, prints, and returns the exit of the battery's verdict.
func (o *batteryOutput) play(cmd *cobra.Command, name string, effective map[string]string, battery func(dir string) (verify.Report, error)) error {
	rep, err := verify.Store(o.store, name, reproduceLine(cmd, effective), battery)
	if err != nil {
		return err
	}
	if o.junit != "" {
		if err := report.WriteJUnitFile(o.junit, verify.JUnit(rep)); err != nil {
			return err
		}
	}
	write := verify.WriteText
	if o.json {
		write = verify.WriteJSON
	}
	if err := write(cmd.OutOrStdout(), rep); err != nil {
		return err
	}
	if rep.Verdict == judge.Inconclusive && rep.Gate == judge.GateReceiverLog {
		// Every scenario passed, but a panic or race the log shows may
		// have been missed: not a pass.
		warn(cmd.ErrOrStderr(), []string{rep.Reason})
	}
	return exitFor(rep.Verdict)
}
