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
	Field string // as Config names it: "LeaseTTL"
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
	if c.Target == nil {
		bad("Target", "required")
	}
	if c.Issuer != nil && c.Leases != nil {
		bad("Issuer", "give Leases or Issuer, not both")
	}
	if c.Issuer != nil && c.Deterministic {
		bad("Issuer", "%s runs on the real clock, not in the deterministic simulation", c.Issuer.Name())
	}
	if c.Issuer != nil && c.VirtualClock {
		bad("Issuer", "%s talks to servers outside the process, which a virtual clock cannot wait for", c.Issuer.Name())
	}
	if !c.TaskOrder.IsRandom() && !c.Deterministic {
		bad("TaskOrder", "%s orders the tasks of the deterministic simulation, and this run is not one: only a Deterministic run is scheduled by fencecheck", c.TaskOrder)
	}
	if c.VirtualClock && c.Deterministic {
		bad("VirtualClock", "a deterministic run has a virtual clock of its own (give one of them)")
	}
}

// validateSize checks the workers and the resources.
func (c *Config) validateSize(bad func(field, format string, args ...any)) {
	if c.Workers < 1 || c.Workers > 10000 {
		bad("Workers", "%d is not between 1 and 10000", c.Workers)
	}
	if c.Resources < 1 || c.Resources > 1000000 {
		bad("Resources", "%d is not between 1 and 1000000", c.Resources)
	}
	if len(c.ResourceNames) > 0 && len(c.ResourceNames) != c.Resources {
		bad("ResourceNames", "%d names for %d resources", len(c.ResourceNames), c.Resources)
	}
	seen := make(map[string]bool)
	for _, name := range c.ResourceNames {
		if why := validResourceName(name); why != "" {
			bad("ResourceNames", "%s", why)
		}
		if seen[name] {
			bad("ResourceNames", "%q appears twice", name)
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
	negative("Duration", float64(c.Duration))
	negative("Ops", float64(c.Ops))
	if c.Duration == 0 && c.Ops == 0 {
		bad("Duration", "zero with no operation limit: the run would never end")
	}
	negative("Rate", c.Rate)
	if c.LeaseTTL <= 0 {
		bad("LeaseTTL", "must be positive")
	}
	share("ReadShare", c.ReadShare)
	share("RepeatShare", c.RepeatShare)
	negative("Think", float64(c.Think))
	if c.OpTimeout <= 0 {
		bad("OpTimeout", "must be positive")
	}
	negative("Latency", float64(c.Latency))
	negative("MinStale", float64(c.MinStale))
	negative("CheckTimeout", float64(c.CheckTimeout))
	negative("ShrinkTimeout", float64(c.ShrinkTimeout))
}

// validateStore checks where the run is stored.
func (c *Config) validateStore(bad func(field, format string, args ...any)) {
	if c.RunName != "" && !runstore.ValidComponent(c.RunName) {
		bad("RunName", "%q: %v", c.RunName, runstore.ErrBadName)
	}
	if c.StoreDir == "" {
		bad("StoreDir", "required")
	}
	if c.Keep != KeepAll && c.Keep != KeepViolations {
		bad("Keep", "%d is not KeepAll or KeepViolations", c.Keep)
	}
}

// validateFaults asks every fault whether it can act at the run's Site,
// and checks the schedule that switches them. The issuer faults that
// cannot are reported together, in the caller's terms.
func (c *Config) validateFaults() []error {
	var errs []error
	var noServers []string
	for _, err := range nemesis.Unavailables(c.Faults, c.Site()) {
		var u *nemesis.Unavailable
		if errors.As(err, &u) && u.Needs == nemesis.NeedIssuerServers {
			noServers = append(noServers, u.Fault)
			continue
		}
		errs = append(errs, &FieldError{Field: "Faults", Err: err})
	}
	if len(noServers) > 0 {
		errs = append(errs, &FieldError{Field: "Faults", Err: needsServers(noServers, c.terms())})
	}
	if c.Schedule == nil && len(c.Faults) > 0 {
		errs = append(errs, &FieldError{Field: "Schedule", Err: errors.New("required with faults")})
	}
	if sc, ok := c.Schedule.(nemesis.Script); ok {
		if err := sc.Validate(c.Faults); err != nil {
			errs = append(errs, &FieldError{Field: "Schedule", Err: err})
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
	s := c.Strategy
	if !slices.Contains(workload.Strategies(), s) {
		bad("Strategy", "%v is not a strategy (want one of %s)", s, workload.StrategyNames())
		return
	}
	if s == workload.LongerLease {
		if c.LeaseMultiplier < 1 {
			bad("LeaseMultiplier", "%v: a longer lease is at least as long as LeaseTTL (1 or more)", c.LeaseMultiplier)
		}
		if c.Leases != nil {
			bad("Strategy", "%s needs the run to open its lease service with a longer TTL; a service given in Leases has its own", s)
		}
	}
	if s == workload.Renew && c.RenewEvery <= 0 {
		bad("RenewEvery", "must be positive with %s", s)
	}
	if c.Target != nil && !s.Fences() {
		if _, err := targets.Tokenless(c.Target); err != nil {
			bad("Strategy", "%s writes without a token, and %s cannot: %v", s, c.TargetName, err)
		}
	}
	if c.Leases != nil {
		if err := workload.CheckLeases(s, c.Leases); err != nil {
			bad("Leases", "%v", err)
		}
	}
}
