package main

import (
	"fmt"

	"github.com/fencecheck/fencecheck/lease"
	leasespec "github.com/fencecheck/fencecheck/lease/spec"
)

// parseLeases returns the issuer a --leases spec names, or nil for the
// run's own lease service (local); a bad spec is a usage error naming
// the flag.
func parseLeases(spec string) (lease.Issuer, error) {
	iss, err := leasespec.Parse(spec, leasespec.DefaultOptions())
	if err != nil {
		return nil, &usageError{fmt.Errorf("--leases: %w", err)}
	}
	return iss, nil
}
