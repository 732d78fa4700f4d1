// Package judge turns a recorded history into the verdict a release gate
// relies on. It is the only place that does: a run (harness.Run), a
// recorded history (fencecheck check), a history read as it is written
// (check --follow, run --stop-on-violation), a sweep of seeds, the verify
// battery and fencetest all hand what they recorded to this package and
// get the same Report back, so a rule about verdicts changes here and
// nowhere else.
//
// Judge reads top to bottom, as etcd's robustness validation does:
//
//	history ──> check (fast checker, porcupine) ──> coverage, evidence
//	        ──> explain the violations ──> shrink the first ──> rules ──> Report
//
// Every rule that decides a verdict is a small named function in
// rules.go, consulted in order: a violation of the issuer, the receiver,
// the exclusive requirement or the receiver's log first; then what makes
// a judgement inconclusive (an interrupted run, a checker that gave up,
// too little evidence, too few stale writes, none after a crash of the
// receiver, an untested failover, an unread log); a pass only when none
// applies. A conformance battery has no history to check as a whole,
// its scenarios judged their own rows: DecideBattery (battery.go) turns
// those rows into its verdict.
package judge
