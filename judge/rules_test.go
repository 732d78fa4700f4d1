package judge

import (
	"errors"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fencecheck/fencecheck/check"
	"github.com/fencecheck/fencecheck/explain"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/logscan"
)

// TestRulesDecide is the table of every verdict rule: what a judged
// history shows, the verdict a gate owner gets for it, the gate that
// decided and the reason's words. The rules are consulted in order, so
// each row also holds that a rule higher up wins over the ones below.
func TestRulesDecide(t *testing.T) {
	t.Parallel()
	passed := func() Report {
		return Report{
			Check:    explain.Result{Result: check.Result{Verdict: check.Held, Model: "fenced", Policy: "strict", Resources: 1}},
			Counts:   histories.Counts{Accepted: 3, Rejected: 1},
			Coverage: Coverage{StaleWrites: 1, StaleRejected: 1, FaultActions: map[string]int{"pause": 2}},
			Evidence: histories.Evidence{Resources: 1},
		}
	}
	violated := func(r *Report) {
		r.Check.Verdict = check.Violated
		r.Check.Violations = []explain.Violation{{Resource: "r1", Summary: "stale write accepted", At: 5e6}}
	}
	issuer := []check.IssuerViolation{{Kind: check.Reused, Resource: "r1", Token: 7, Earlier: 7, Index: 9, EarlierIndex: 3, Holder: 1, EarlierHolder: 2}}
	race := &logscan.Outcome{Report: logscan.Report{File: "/run/receiver.log", Lines: 3, Hits: 1, Counts: []logscan.Count{{Pattern: "Go data race", Runtime: "Go", Hits: 1, Findings: 1, First: 2}}, Findings: 1}}
	unread := &logscan.Outcome{Error: "read receiver.log: permission denied"}
	cases := []struct {
		name    string
		report  func(*Report)
		options func(*Options)
		verdict Verdict
		gate    Gate
		reason  string
	}{
		{"nothing applies: held", nil, nil, Held, GateCheck,
			"every resource's history is linearizable for a fenced register (strict policy)"},
		{"the issuer reused a token, the receiver held", func(r *Report) { r.Check.Issuer = issuer }, nil, Violated, GateIssuer,
			"the token issuer, not the receiver: the issuer handed token 7 on resource r1 to two workers (worker 2 at index 3, worker 1 at index 9); the receiver's history is linearizable given these tokens"},
		{"the issuer reused a token and went backwards", func(r *Report) {
			r.Check.Issuer = append(slices.Clone(issuer), check.IssuerViolation{Kind: check.NotIncreasing, Resource: "r1", Token: 5, Earlier: 7, Index: 12, EarlierIndex: 9, Holder: 3, EarlierHolder: 1})
		}, nil, Violated, GateIssuer,
			"the token issuer, not the receiver: the issuer handed token 7 on resource r1 to two workers (worker 2 at index 3, worker 1 at index 9) (and 1 more issuer violations); the receiver's history is linearizable given these tokens"},
		{"the issuer and the receiver both broke", func(r *Report) { r.Check.Issuer = issuer; violated(r) }, nil, Violated, GateIssuer,
			"the token issuer, and the receiver too: the issuer handed token 7 on resource r1 to two workers (worker 2 at index 3, worker 1 at index 9); and the history is not linearizable for a fenced register (strict policy) on 1 of 1 resources; first on r1 at 5ms: stale write accepted"},
		{"the issuer broke, the receiver's evidence is thin", func(r *Report) { r.Check.Issuer = issuer; r.Evidence.Resources = 0 }, nil, Violated, GateIssuer,
			"the token issuer, not the receiver: the issuer handed token 7 on resource r1 to two workers (worker 2 at index 3, worker 1 at index 9); the receiver's verdict alone is inconclusive: too little evidence for a verdict: the history has no client operations"},
		{"the receiver's history is not linearizable", violated, nil, Violated, GateCheck,
			"the history is not linearizable for a fenced register (strict policy) on 1 of 1 resources; first on r1 at 5ms: stale write accepted"},
		{"a violation beats an interruption and a race", func(r *Report) { violated(r); r.ReceiverLog = race }, func(o *Options) { o.Stopped = errors.New("interrupt") }, Violated, GateCheck,
			"the history is not linearizable for a fenced register (strict policy) on 1 of 1 resources; first on r1 at 5ms: stale write accepted"},
		{"a write accepted after its lease ended", func(r *Report) { r.Exclusive = []ExclusiveViolation{{OpID: 4}} }, nil, Violated, GateExclusive,
			"1 writes were accepted after their lease had ended (exclusive requirement)"},
		{"the receiver's log shows a race", func(r *Report) { r.ReceiverLog = race }, nil, Violated, GateReceiverLog,
			"the receiver's log (receiver.log) shows 1 Go data race (finding), first at line 2"},
		{"an interrupted run", nil, func(o *Options) { o.Stopped = errors.New("interrupt") }, Interrupted, GateInterrupted,
			"the run was stopped early; no violation in what it recorded, but it exercised only 1 stale writes"},
		{"the checker gave up", func(r *Report) { r.Check.Verdict, r.Check.TimedOut = check.Inconclusive, []string{"r1", "r2"} }, nil, Inconclusive, GateCheck,
			"the checker gave up on 2 resources (r1, r2)"},
		{"no client operation", func(r *Report) { r.Evidence.Resources = 0 }, nil, Inconclusive, GateEvidence,
			"too little evidence for a verdict: the history has no client operations"},
		{"too few stale writes, no fault makes them", nil, func(o *Options) { o.MinStale = 2 }, Inconclusive, GateMinStale,
			"1 stale writes were submitted, and a pass needs at least 2: no fault of the run holds a worker or a write until a newer token was accepted (pause, delay and hold do)"},
		{"too few stale writes, the faults never acted", nil, func(o *Options) { o.MinStale, o.StaleFaults = 2, []string{"delay"} }, Inconclusive, GateMinStale,
			"1 stale writes were submitted, and a pass needs at least 2: the faults that make stale writes never acted: the fault phase ended before they did (lengthen the duration)"},
		{"too few stale writes, the faults acted", nil, func(o *Options) { o.MinStale, o.StaleFaults = 2, []string{"pause"} }, Inconclusive, GateMinStale,
			"1 stale writes were submitted, and a pass needs at least 2: the faults acted (2 fault actions), but no held worker's lease expired and was reassigned while it was held (lengthen the duration or shorten the lease TTL)"},
		{"too few stale writes, nothing acknowledged", func(r *Report) { r.Counts = histories.Counts{} }, func(o *Options) { o.MinStale = 2 }, Inconclusive, GateMinStale,
			"1 stale writes were submitted, and a pass needs at least 2: no write was acknowledged: every write failed or went unanswered"},
		{"crashes, and no stale write after one", func(r *Report) { r.Coverage.Crashes, r.Coverage.StaleUnknown = 3, 1 }, func(o *Options) { o.CrashFaults = []string{"kill"} }, Inconclusive, GateCrash,
			"no stale write reached the receiver after it was crashed and started again, so whether it keeps its highest token across a crash was not tested: of 1 stale writes (1 unknown) over 3 receiver crashes, none was sent after a crash with a token below one accepted before it and answered"},
		{"crashes in a history judged without the run's faults", func(r *Report) { r.Coverage.Crashes = 1 }, nil, Inconclusive, GateCrash,
			"no stale write reached the receiver after it was crashed and started again, so whether it keeps its highest token across a crash was not tested: of 1 stale writes (0 unknown) over 1 receiver crashes, none was sent after a crash with a token below one accepted before it and answered"},
		{"a crash fault that never acted", nil, func(o *Options) { o.CrashFaults = []string{"kill"} }, Inconclusive, GateCrash,
			"no stale write reached the receiver after it was crashed and started again, so whether it keeps its highest token across a crash was not tested: the receiver was never crashed: the fault phase ended before the crash fault acted"},
		{"a stale write after a crash", func(r *Report) { r.Coverage.Crashes, r.Coverage.StaleAfterCrash = 2, 1 }, func(o *Options) { o.CrashFaults = []string{"kill"} }, Held, GateCheck,
			"every resource's history is linearizable for a fenced register (strict policy)"},
		{"an issuer fault, no grant after the outage", func(r *Report) { r.Coverage.FaultActions["issuer-kill"] = 1 }, func(o *Options) { o.IssuerFaults = []string{"issuer-kill"} }, Inconclusive, GateFailover,
			"no lease was granted after an issuer server came back from an outage, so the token sequence across a failover was not exercised: the run's work ended before a server came back (1 outages, 0 leader changes)"},
		{"an issuer fault that never acted", nil, func(o *Options) { o.IssuerFaults = []string{"issuer-pause"} }, Inconclusive, GateFailover,
			"no lease was granted after an issuer server came back from an outage, so the token sequence across a failover was not exercised: the issuer faults never acted: no worker reached its pause point in the fault phase"},
		{"a grant after the failover", func(r *Report) { r.Coverage.GrantsAfterFailover = 1 }, func(o *Options) { o.IssuerFaults = []string{"issuer-kill"} }, Held, GateCheck,
			"every resource's history is linearizable for a fenced register (strict policy)"},
		{"the receiver's log was not read", func(r *Report) { r.ReceiverLog = unread }, nil, Inconclusive, GateReceiverLog,
			"the receiver's log could not be read to its end, so a crash or data race it shows may be missed: read receiver.log: permission denied"},
		{"no stale write, and the gate opted out", func(r *Report) { r.Coverage.StaleWrites, r.Coverage.StaleRejected = 0, 0 }, func(o *Options) { o.MinStale = 0 }, Held, GateCheck,
			"every resource's history is linearizable for a fenced register (strict policy), but the protected case was not tested: no older owner's write reached the resource after a newer one's, and the stale-write gate was set to 0"},
		{"no stale write, the default gate", func(r *Report) { r.Coverage.StaleWrites, r.Coverage.StaleRejected = 0, 0 }, nil, Inconclusive, GateMinStale,
			"0 stale writes were submitted, and a pass needs at least 1: no fault of the run holds a worker or a write until a newer token was accepted (pause, delay and hold do)"},
		{"a plain register", func(r *Report) { r.Check.Model = "register" }, nil, Held, GateCheck,
			"every resource's history is linearizable for a plain register"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, o := passed(), DefaultOptions()
			if tc.report != nil {
				tc.report(&r)
			}
			if tc.options != nil {
				tc.options(&o)
			}
			d := decide(&r, &o)
			assert.Equal(t, tc.verdict, d.verdict)
			assert.Equal(t, tc.gate, d.gate)
			assert.Equal(t, tc.reason, d.reason)
		})
	}
}
