package explore

import (
	"slices"
	"time"

	"github.com/fencecheck/fencecheck/harness"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/nemesis"
)

// Entry is one seed of a sweep as its log, sweep.jsonl, keeps it: what
// a run that is not stored leaves behind, enough to count what the sweep
// exercised and to pick a seed to run again.
type Entry struct {
	Seed    uint64        `json:"seed"`
	Verdict judge.Verdict `json:"verdict"`
	Gate    judge.Gate    `json:"gate"`
	// Reason is the run's reason for a verdict other than held.
	Reason   string           `json:"reason,omitempty"`
	Counts   histories.Counts `json:"counts"`
	Coverage Coverage         `json:"coverage"`
	// Draw is what the seed drew, in a swarm.
	Draw *Draw `json:"swarm,omitempty"`
	// Dir is the stored run of a seed that violated; Command the line
	// that repeats the run, for a seed that did not hold.
	Dir     string        `json:"dir,omitempty"`
	Command string        `json:"reproduce,omitempty"`
	Elapsed time.Duration `json:"elapsed_ns"`

	// checked: the run's history was checked to the end and found no
	// violation (it held, or a coverage gate made it inconclusive), so
	// what it exercised counts for the sweep (verdict.go).
	checked bool
	// minStale and issuerFaults are what the run's gates asked for.
	minStale     int
	issuerFaults bool
	faults       []string
	interrupted  bool
}

// Coverage is the part of a run's harness.Coverage a sweep adds up.
type Coverage struct {
	StaleWrites         int            `json:"stale_writes"`
	StaleRejected       int            `json:"stale_rejected"`
	StaleAccepted       int            `json:"stale_accepted"`
	StaleUnknown        int            `json:"stale_unknown"`
	EqualTokenRepeats   int            `json:"equal_token_repeats"`
	UnknownOutcomes     int            `json:"unknown_outcomes"`
	LeaseGrants         int            `json:"lease_grants"`
	LeaseExpiries       int            `json:"lease_expiries"`
	FaultActions        map[string]int `json:"fault_actions"`
	GrantsAfterFailover int            `json:"grants_after_failover,omitempty"`
}

// entryOf is the log's line of a trial's run.
func entryOf(tr Trial, res *harness.Result) Entry {
	cov := res.Coverage
	e := Entry{Seed: tr.Seed, Verdict: res.Verdict, Gate: res.Gate, Counts: res.Counts, Draw: tr.Draw, Dir: res.Dir, Elapsed: res.Elapsed,
		Coverage: Coverage{StaleWrites: cov.StaleWrites, StaleRejected: cov.StaleRejected, StaleAccepted: cov.StaleAccepted,
			StaleUnknown: cov.StaleUnknown, EqualTokenRepeats: cov.EqualTokenRepeats, UnknownOutcomes: cov.UnknownOutcomes,
			LeaseGrants: cov.LeaseGrants, LeaseExpiries: cov.LeaseExpiries, FaultActions: cov.FaultActions,
			GrantsAfterFailover: cov.GrantsAfterFailover},
		minStale: res.Config.MinStale, faults: res.Config.Faults, interrupted: res.Interrupted,
		issuerFaults: slices.ContainsFunc(res.Config.Faults, isIssuerFault)}
	if res.Verdict != judge.Held {
		e.Reason, e.Command = res.Reason, res.Config.Command
	}
	e.checked = judge.Exercised(res.Verdict, res.Gate)
	return e
}

// isIssuerFault says whether the fault acts on the token issuer's
// servers, whose runs are tested only across a failover
// (harness.GateFailover).
func isIssuerFault(name string) bool { return slices.Contains(nemesis.IssuerExtra().Names, name) }
