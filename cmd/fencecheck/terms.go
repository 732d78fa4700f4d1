package main

import (
	"errors"
	"fmt"

	"github.com/fencecheck/fencecheck/harness"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/verify"
)

// runTerms words the harness's settings as run's flags, for a target of
// the scheme given: advice names only a flag that applies to it.
type runTerms struct {
	// exec: the target is one --exec can start (http://, https://);
	// process: --exec started it.
	exec, process bool
}

func (t runTerms) Setting(s harness.Setting) string {
	switch {
	case s.Field == "Nemesis.Faults" && s.Value == "kill" && !t.process && !t.exec:
		return "" // no receiver process fencecheck could start and crash
	case s.Field == "Nemesis.Faults":
		return "--nemesis " + s.Value
	case s.Field == "Target.Receiver" && s.Value == "process" && !t.exec:
		return "" // --exec starts HTTP receivers only
	case s.Field == "Target.Receiver" && s.Value == "process":
		return "--exec"
	case s.Field == "Gates.RequireExclusive":
		return "--require exclusive"
	case s.Field == "Gates.StopOnViolation":
		return "--stop-on-violation"
	case s.Field == "Leases.Issuer" && s.Value == "servers":
		return "--leases etcd, redis, postgres or nats"
	}
	if flag, ok := fieldFlags[s.Field]; ok {
		return "--" + flag
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
// reach, by its path in harness.Config (harness.FieldError.Field);
// TestEveryConfigFieldHasItsFlag holds it to the Config.
var fieldFlags = map[string]string{
	"Target.Receiver": "target", "Target.MaxToken": "max-token",
	"Workload.Workers": "workers", "Workload.Resources": "resources", "Workload.ResourceNames": "resource-names", "Workload.Shard": "shard",
	"Workload.Duration": "duration", "Workload.Ops": "ops", "Workload.Rate": "rate", "Workload.ReadShare": "read-share", "Workload.Burst": "burst", "Workload.Burst.Share": "burst", "Workload.Burst.Size": "burst-size",
	"Workload.Think": "think", "Workload.OpTimeout": "op-timeout", "Workload.Strategy": "client-strategy",
	"Workload.LeaseMultiplier": "lease-multiplier", "Workload.RenewEvery": "renew-every", "Workload.ClockSkew": "clock-skew",
	"Leases.TTL": "lease-ttl", "Leases.Issuer": "leases", "Leases.Tokens": "tokens",
	"Nemesis.Faults": "nemesis", "Nemesis.Schedule": "nemesis-script",
	"Runtime.Seed": "seed", "Runtime.Deterministic": "realtime", "Runtime.TaskOrder": "schedule",
	"Gates.Policy": "policy", "Gates.RequireExclusive": "require", "Gates.MinStale": "min-stale",
	"Gates.StopOnViolation": "stop-on-violation", "Gates.CheckTimeout": "check-timeout",
	"Store.Dir": "store", "Store.RunName": "name", "Store.NoReport": "no-report",
}

// configError words harness.Config.Validate's errors as run's flags:
// each field by the flag that sets it.
func configError(err error) error {
	return harness.Reword(err, func(fe *harness.FieldError) string {
		name, ok := fieldFlags[fe.Field]
		if !ok {
			name = fe.Field
		}
		why := fe.Err.Error()
		if missing := (*nemesis.MissingFaultError)(nil); errors.As(fe.Err, &missing) {
			why = fmt.Sprintf("nemesis script names fault %q, which is not in --nemesis", missing.Fault)
		}
		return name + ": " + why
	})
}
