package harness

import (
	"errors"
	"fmt"
	"slices"

	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/runstore"
	"github.com/fencecheck/fencecheck/targets"
	"github.com/fencecheck/fencecheck/workload"
)

// FieldError is what is wrong with one field of a Config.
type FieldError struct {
	Field string // the field's path in Config: "Leases.TTL"
	Err   error
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Err.Error() }
func (e *FieldError) Unwrap() error { return e.Err }

// problems collects Validate's errors, each a *FieldError.
type problems []error

// bad adds what is wrong with field.
func (p *problems) bad(field, format string, args ...any) {
	*p = append(*p, &FieldError{Field: field, Err: fmt.Errorf(format, args...)})
}

// Validate reports every problem with c, each a *FieldError naming its
// field. Each part of the configuration is checked by a function of its
// own; a fault's own preconditions are the fault's to say
// (nemesis.Fault.Available, asked with the run's Site).
func (c *Config) Validate() error {
	var p problems
	c.validateClock(p.bad)
	c.validateSize(p.bad)
	c.validateShard(p.bad)
	c.validateTimings(p.bad)
	c.validateStore(p.bad)
	c.validateStrategy(p.bad)
	c.validateTokens(p.bad)
	p = append(p, c.validateFaults()...)
	return errors.Join(p...)
}

// validateClock checks the target, the lease service and what the run's
// clock can be with them.
func (c *Config) validateClock(bad func(field, format string, args ...any)) {
	if c.Target.Receiver == nil {
		bad("Target.Receiver", "required")
	}
	if c.Leases.Issuer != nil && c.Leases.Service != nil {
		bad("Leases.Issuer", "give Leases or Issuer, not both")
	}
	if c.Leases.Issuer != nil && c.Runtime.Deterministic {
		bad("Leases.Issuer", "%s runs on the real clock, not in the deterministic simulation", c.Leases.Issuer.Name())
	}
	if c.Leases.Issuer != nil && c.Runtime.VirtualClock {
		bad("Leases.Issuer", "%s talks to servers outside the process, which a virtual clock cannot wait for", c.Leases.Issuer.Name())
	}
	if !c.Runtime.TaskOrder.IsRandom() && !c.Runtime.Deterministic {
		bad("Runtime.TaskOrder", "%s orders the tasks of the deterministic simulation, and this run is not one: only a Deterministic run is scheduled by fencecheck", c.Runtime.TaskOrder)
	}
	if c.Runtime.VirtualClock && c.Runtime.Deterministic {
		bad("Runtime.VirtualClock", "a deterministic run has a virtual clock of its own (give one of them)")
	}
}

// validateSize checks the workers and the resources.
func (c *Config) validateSize(bad func(field, format string, args ...any)) {
	if c.Workload.Workers < 1 || c.Workload.Workers > 10000 {
		bad("Workload.Workers", "%d is not between 1 and 10000", c.Workload.Workers)
	}
	if c.Workload.Resources < 1 || c.Workload.Resources > 1000000 {
		bad("Workload.Resources", "%d is not between 1 and 1000000", c.Workload.Resources)
	}
	if len(c.Workload.ResourceNames) > 0 && len(c.Workload.ResourceNames) != c.Workload.Resources {
		bad("Workload.ResourceNames", "%d names for %d resources", len(c.Workload.ResourceNames), c.Workload.Resources)
	}
	seen := make(map[string]bool)
	for _, name := range c.Workload.ResourceNames {
		if why := validResourceName(name); why != "" {
			bad("Workload.ResourceNames", "%s", why)
		}
		if seen[name] {
			bad("Workload.ResourceNames", "%q appears twice", name)
		}
		seen[name] = true
	}
}

// validateTimings checks how long the run lasts and the shape of its
// work.
func (c *Config) validateTimings(bad func(field, format string, args ...any)) {
	negative := func(field string, v float64) {
		if v < 0 {
			bad(field, "negative")
		}
	}
	share := func(field string, p float64) {
		if p < 0 || p > 1 {
			bad(field, "%v is a probability, between 0 and 1", p)
		}
	}
	negative("Workload.Duration", float64(c.Workload.Duration))
	negative("Workload.Ops", float64(c.Workload.Ops))
	if c.Workload.Duration == 0 && c.Workload.Ops == 0 {
		bad("Workload.Duration", "zero with no operation limit: the run would never end")
	}
	negative("Workload.Rate", c.Workload.Rate)
	if c.Leases.TTL <= 0 {
		bad("Leases.TTL", "must be positive")
	}
	share("Workload.ReadShare", c.Workload.ReadShare)
	share("Workload.RepeatShare", c.Workload.RepeatShare)
	share("Workload.Burst.Share", c.Workload.Burst.Share)
	if c.Workload.Burst.Share > 0 && c.Workload.Burst.Size < 2 {
		bad("Workload.Burst.Size", "%d: a burst gathers at least 2 writes", c.Workload.Burst.Size)
	}
	if c.Workload.Burst.Share > 0 && c.Workload.Burst.Wait <= 0 {
		bad("Workload.Burst.Wait", "must be positive when bursts are on")
	}
	negative("Workload.Think", float64(c.Workload.Think))
	if c.Workload.OpTimeout <= 0 {
		bad("Workload.OpTimeout", "must be positive")
	}
	negative("Runtime.Latency", float64(c.Runtime.Latency))
	negative("Gates.MinStale", float64(c.Gates.MinStale))
	negative("Gates.CheckTimeout", float64(c.Gates.CheckTimeout))
	negative("Gates.ShrinkTimeout", float64(c.Gates.ShrinkTimeout))
}

// validateStore checks where the run is stored.
func (c *Config) validateStore(bad func(field, format string, args ...any)) {
	if c.Store.RunName != "" && !runstore.ValidComponent(c.Store.RunName) {
		bad("Store.RunName", "%q: %v", c.Store.RunName, runstore.ErrBadName)
	}
	if c.Store.Dir == "" {
		bad("Store.Dir", "required")
	}
	if c.Store.Keep != KeepAll && c.Store.Keep != KeepViolations {
		bad("Store.Keep", "%d is not KeepAll or KeepViolations", c.Store.Keep)
	}
}

// validateFaults asks every fault whether it can act at the run's Site,
// and checks the schedule that switches them. The issuer faults that
// cannot are reported together, in the caller's terms.
func (c *Config) validateFaults() []error {
	var errs []error
	var noServers []string
	for _, err := range nemesis.Unavailables(c.Nemesis.Faults, c.Site()) {
		var u *nemesis.Unavailable
		if errors.As(err, &u) && u.Needs == nemesis.NeedIssuerServers {
			noServers = append(noServers, u.Fault)
			continue
		}
		errs = append(errs, &FieldError{Field: "Nemesis.Faults", Err: err})
	}
	if len(noServers) > 0 {
		errs = append(errs, &FieldError{Field: "Nemesis.Faults", Err: needsServers(noServers, c.terms())})
	} else if err := c.clockJumps(); err != nil {
		errs = append(errs, &FieldError{Field: "Nemesis.Faults", Err: err})
	}
	if c.Nemesis.Schedule == nil && len(c.Nemesis.Faults) > 0 {
		errs = append(errs, &FieldError{Field: "Nemesis.Schedule", Err: errors.New("required with faults")})
	}
	if sc, ok := c.Nemesis.Schedule.(nemesis.Script); ok {
		if err := sc.Validate(c.Nemesis.Faults); err != nil {
			errs = append(errs, &FieldError{Field: "Nemesis.Schedule", Err: err})
		}
	}
	return errs
}

// Site is what the run offers its faults to act on (nemesis.Site): the
// token issuer's servers, when its Issuer says it will have them
// (lease.ServerIssuer) or its Leases has them (lease.Servers). The fault
// proxies are the target's: a toxic that a started proxy holds knows it
// is in one (targets/spec starts them for the faults it is given).
func (c *Config) Site() nemesis.Site {
	return nemesis.Site{IssuerServers: c.hasIssuerServers()}
}

// validateStrategy reports what Strategy needs that the rest of c lacks.
// A real issuer's capabilities are known only once the run opens it.
func (c *Config) validateStrategy(bad func(field, format string, args ...any)) {
	s := c.Workload.Strategy
	if !slices.Contains(workload.Strategies(), s) {
		bad("Workload.Strategy", "%v is not a strategy (want one of %s)", s, workload.StrategyNames())
		return
	}
	if s == workload.LongerLease {
		if c.Workload.LeaseMultiplier < 1 {
			bad("Workload.LeaseMultiplier", "%v: a longer lease is at least as long as LeaseTTL (1 or more)", c.Workload.LeaseMultiplier)
		}
		if c.Leases.Service != nil {
			bad("Workload.Strategy", "%s needs the run to open its lease service with a longer TTL; a service given in Leases has its own", s)
		}
	}
	if s == workload.Renew && c.Workload.RenewEvery <= 0 {
		bad("Workload.RenewEvery", "must be positive with %s", s)
	}
	if c.Workload.ClockSkew < 0 {
		bad("Workload.ClockSkew", "%v: the skew is how far the workers' clocks run behind the issuer's (0 or more)", c.Workload.ClockSkew)
	}
	if c.Target.Receiver != nil && !s.Fences() {
		if _, err := targets.Tokenless(c.Target.Receiver); err != nil {
			bad("Workload.Strategy", "%s writes without a token, and %s cannot: %v", s, c.Target.Name, err)
		}
	}
	if c.Leases.Service != nil {
		if err := workload.CheckLeases(s, c.Leases.Service); err != nil {
			bad("Leases.Service", "%v", err)
		}
	}
}
