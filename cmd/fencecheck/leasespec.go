package main

import (
	"fmt"
	"os"

	"github.com/fencecheck/fencecheck/lease"
	leasespec "github.com/fencecheck/fencecheck/lease/spec"
)

// parseLeases returns the issuer a --leases spec names, or nil for the
// run's own lease service (local); a bad spec is a usage error naming
// the flag. The embedded cluster's members run as processes of this
// executable (`fencecheck leases member`), so that the issuer faults can
// crash and freeze them.
func parseLeases(spec string) (lease.Issuer, error) {
	opts := leasespec.DefaultOptions()
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("--leases: find fencecheck's executable for the etcd members: %w", err)
	}
	opts.Embedded.Command = []string{exe, "leases", "member"}
	opts.NATSCommand = []string{exe, "nats-server"}
	iss, err := leasespec.Parse(spec, opts)
	if err != nil {
		return nil, &usageError{fmt.Errorf("--leases: %w", err)}
	}
	return iss, nil
}
