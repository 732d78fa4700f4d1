package harness

import (
	"fmt"

	"github.com/fencecheck/fencecheck/workload"
)

// EffectiveSettings are the settings a line that repeats the run gives,
// by their path in Config ("Workload.Workers"), each with its value as
// the run uses it (the seed it drew, the defaults it applied, as the
// setting's flag or parser reads it back), so that the line means the
// same if a default changes. An empty value is a setting that does not
// apply to this run and is to be left out: the task order outside the
// simulation, a zero Duration or Ops, and the client strategy's own
// settings under another strategy. The faults, the policy and the
// issuer are left to the caller, who words them as they were given.
func (c *Config) EffectiveSettings() map[string]string {
	w := &c.Workload
	e := map[string]string{
		"Workload.Workers": fmt.Sprint(w.Workers), "Workload.Resources": fmt.Sprint(w.Resources), "Leases.TTL": c.Leases.TTL.String(),
		"Runtime.Seed": fmt.Sprint(c.Runtime.Seed), "Gates.MinStale": fmt.Sprint(c.Gates.MinStale), "Leases.Tokens": c.Leases.Tokens.String(),
		"Runtime.TaskOrder": "", "Workload.Duration": "", "Workload.Ops": "",
		"Workload.Strategy": "", "Workload.LeaseMultiplier": "", "Workload.RenewEvery": "",
	}
	switch w.Strategy {
	case workload.Fencing:
	case workload.LongerLease:
		e["Workload.LeaseMultiplier"] = fmt.Sprint(w.LeaseMultiplier)
	case workload.Renew:
		e["Workload.RenewEvery"] = w.RenewEvery.String()
	}
	if w.Strategy != workload.Fencing {
		e["Workload.Strategy"] = w.Strategy.String()
	}
	if c.Runtime.Deterministic {
		e["Runtime.TaskOrder"] = c.Runtime.TaskOrder.String()
	}
	if w.Duration > 0 {
		e["Workload.Duration"] = w.Duration.String()
	}
	if w.Ops > 0 {
		e["Workload.Ops"] = fmt.Sprint(w.Ops)
	}
	return e
}
