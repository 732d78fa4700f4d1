package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/fencecheck/fencecheck/harness"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/verify"
)

// runTerms words the harness's settings as run's flags.
type runTerms struct{}

func (runTerms) Setting(s harness.Setting) string {
	switch {
	case s.Field == "Faults":
		return "--nemesis " + s.Value
	case s.Field == "Target" && s.Value == "process":
		return "--exec"
	case s.Field == "RequireExclusive":
		return "--require exclusive"
	case s.Field == "StopOnViolation":
		return "--stop-on-violation"
	case s.Field == "Issuer" && s.Value == "servers":
		return "--leases etcd, redis or postgres"
	}
	return s.Field
}

// verifyTerms words the battery's settings as verify's flags.
type verifyTerms struct{}

func (verifyTerms) Setting(s verify.Setting) string {
	switch s {
	case verify.RequireExclusive:
		return "--require exclusive"
	case verify.RestartableTarget:
		return "--exec"
	case verify.DeclaredMaxToken:
		return "--max-token"
	}
	return string(s)
}

// fieldFlags names the flag that sets each Config field a run's flags
// reach.
var fieldFlags = map[string]string{
	"Target": "target", "Workers": "workers", "Resources": "resources", "ResourceNames": "resource-names",
	"Duration": "duration", "Ops": "ops", "Rate": "rate", "LeaseTTL": "lease-ttl", "ReadShare": "read-share", "Think": "think",
	"OpTimeout": "op-timeout", "MinStale": "min-stale", "StoreDir": "store", "CheckTimeout": "check-timeout",
	"Schedule": "nemesis-script", "RunName": "name", "Shard": "shard", "Strategy": "client-strategy", "LeaseMultiplier": "lease-multiplier",
	"RenewEvery": "renew-every", "Leases": "leases", "Faults": "nemesis", "Tokens": "tokens", "MaxToken": "max-token",
	"TaskOrder": "schedule",
}

// configError words harness.Config.Validate's errors as run's flags:
// each field by the flag that sets it.
func configError(err error) error {
	var errs []error
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		errs = joined.Unwrap()
	} else {
		errs = []error{err}
	}
	lines := make([]string, len(errs))
	for i, e := range errs {
		lines[i] = e.Error()
		var fe *harness.FieldError
		if !errors.As(e, &fe) {
			continue
		}
		name, ok := fieldFlags[fe.Field]
		if !ok {
			name = fe.Field
		}
		why := fe.Err.Error()
		if missing := (*nemesis.MissingFaultError)(nil); errors.As(fe.Err, &missing) {
			why = fmt.Sprintf("nemesis script names fault %q, which is not in --nemesis", missing.Fault)
		}
		lines[i] = name + ": " + why
	}
	return errors.New(strings.Join(lines, "\n"))
}
