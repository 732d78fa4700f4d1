package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/fencecheck/fencecheck/internal/redact"
	"github.com/fencecheck/fencecheck/runstore"
	"github.com/fencecheck/fencecheck/verify"
)

type verifyIssuerFlags struct {
	leases   string
	leaseTTL time.Duration
	out      batteryOutput
}

func newVerifyIssuerCommand() *cobra.Command {
	var f verifyIssuerFlags
	cmd := &cobra.Command{
		Use:   "verify-issuer --leases SPEC",
		Short: "Run the token issuer's battery: does its sequence only grow, across what it survives?",
		Long:  help("verify-issuer"),
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runVerifyIssuer(cmd.Context(), cmd, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.leases, "leases", "", "the token issuer under test: local, etcd, etcd://HOST:PORT,…, redis[?SETTINGS] (a private redis-server), redis://…, postgres[?SETTINGS] (a private cluster), postgres://… (see docs/leases.md)")
	fl.DurationVar(&f.leaseTTL, "lease-ttl", verify.DefaultIssuerOptions().TTL, "the TTL of the leases the issuer grants (grant-after-ttl waits for one to run out)")
	f.out.register(fl)
	return cmd
}

func runVerifyIssuer(ctx context.Context, cmd *cobra.Command, f verifyIssuerFlags) error {
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
	o := verify.DefaultIssuerOptions()
	o.TTL = f.leaseTTL
	effective := map[string]string{"leases": redact.Spec(f.leases), "lease-ttl": f.leaseTTL.String()}
	return f.out.play(cmd, "verify-issuer-"+runstore.Name(redact.Spec(f.leases)), effective, func(dir string) (verify.Report, error) {
		rep, err := verify.RunIssuerBattery(ctx, issuer, dir, o)
		rep.Target = "local"
		if issuer != nil {
			rep.Target = issuer.Name()
		}
		return rep, err
	})
}
