package judge

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fencecheck/fencecheck/logscan"
)

// TestDecideBattery is the table of the battery's rule: the exit code a
// user of verify gets for what its rows show, the gate that decided, and
// the reason, which names root causes before what may follow from them.
func TestDecideBattery(t *testing.T) {
	t.Parallel()
	race := &logscan.Outcome{Report: logscan.Report{File: "/run/receiver.log", Lines: 3, Hits: 1, Counts: []logscan.Count{{Pattern: "Go data race", Runtime: "Go", Hits: 1, Findings: 1, First: 2}}, Findings: 1}}
	unread := &logscan.Outcome{Error: "read receiver.log: permission denied"}
	clean := &logscan.Outcome{Report: logscan.Report{File: "/run/receiver.log", Lines: 3}}
	failed := func(name string, from ...string) FailedScenario { return FailedScenario{Name: name, FollowsFrom: from} }
	stopped := "the receiver stopped answering during digit-boundaries (connection refused)"
	cases := []struct {
		name    string
		battery Battery
		verdict Verdict
		gate    Gate
		reason  string
	}{
		{"every row passed", Battery{}, Held, GateScenarios, "no scenario failed"},
		{"a clean log", Battery{ReceiverLog: clean}, Held, GateScenarios, "no scenario failed"},
		{"one failure", Battery{Failed: []FailedScenario{failed("stale-after-newer")}}, Violated, GateScenarios,
			"stale-after-newer failed"},
		{"three failures on their own", Battery{Failed: []FailedScenario{failed("a"), failed("b"), failed("c")}}, Violated, GateScenarios,
			"a, b and c failed"},
		{"scope first, whatever the table's order", Battery{Failed: []FailedScenario{
			failed("equal-token-repeat", "scope"), failed("two-first-writers", "scope"), failed("scope"), failed("acknowledged-writes", "scope")}},
			Violated, GateScenarios,
			"scope failed, and equal-token-repeat, two-first-writers and acknowledged-writes may follow from it"},
		{"a root and a failure on its own", Battery{Failed: []FailedScenario{failed("digit-boundaries"), failed("scope"), failed("equal-token-repeat", "scope")}},
			Violated, GateScenarios, "scope failed, and equal-token-repeat may follow from it; digit-boundaries failed too"},
		{"two roots, a row that may follow from both named with the first", Battery{Failed: []FailedScenario{
			failed("scope"), failed("restart-durability"), failed("x", "scope", "restart-durability"), failed("y", "restart-durability")}},
			Violated, GateScenarios, "scope failed, and x may follow from it; restart-durability failed, and y may follow from it"},
		{"a root that follows from another names its followers with that one", Battery{Failed: []FailedScenario{
			failed("scope"), failed("restart-durability", "scope"), failed("y", "restart-durability")}},
			Violated, GateScenarios, "scope failed, and restart-durability and y may follow from it"},
		{"a root that passed is no root", Battery{Failed: []FailedScenario{failed("equal-token-repeat", "scope")}}, Violated, GateScenarios,
			"equal-token-repeat failed"},
		{"only the log's row failed", Battery{Failed: []FailedScenario{failed("receiver-log")}, ReceiverLog: race}, Violated, GateReceiverLog,
			"receiver-log failed"},
		{"the log and a scenario failed", Battery{Failed: []FailedScenario{failed("scope"), failed("receiver-log")}, ReceiverLog: race}, Violated, GateScenarios,
			"scope and receiver-log failed"},
		{"a failure beats scenarios not run", Battery{Failed: []FailedScenario{failed("digit-boundaries")}, NotRun: []string{"scope", "restart-durability"}, Stopped: stopped},
			Violated, GateScenarios, "digit-boundaries failed; scope and restart-durability not run: " + stopped},
		{"scenarios not run and no failure", Battery{NotRun: []string{"restart-durability"}, Stopped: stopped}, Inconclusive, GateNotRun,
			"no scenario failed, but restart-durability not run: " + stopped},
		{"scenarios not run beat an unread log", Battery{NotRun: []string{"scope"}, Stopped: stopped, ReceiverLog: unread}, Inconclusive, GateNotRun,
			"no scenario failed, but scope not run: " + stopped},
		{"an unread log and no failure", Battery{ReceiverLog: unread}, Inconclusive, GateReceiverLog,
			"the receiver's log could not be read to its end, so a crash or data race it shows may be missed: read receiver.log: permission denied"},
		{"a failure beats an unread log", Battery{Failed: []FailedScenario{failed("scope")}, ReceiverLog: unread}, Violated, GateScenarios, "scope failed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v, g, reason := DecideBattery(tc.battery)
			assert.Equal(t, tc.verdict, v)
			assert.Equal(t, tc.gate, g)
			assert.Equal(t, tc.reason, reason)
		})
	}
}
