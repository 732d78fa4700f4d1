package judge

// Verdict is what a judgement concludes, and what the exit code of every
// command that judges reports. Only this package decides one: every other
// package receives it in a Report and compares it with these constants
// (TestOnlyTheJudgeDecidesVerdicts holds that).
type Verdict string

// Verdicts.
const (
	// Held: the invariant held, on evidence, and every gate was met.
	Held Verdict = "held"
	// Violated: a violation was found (in the receiver's history, the
	// issuer's grants, the exclusive requirement or the receiver's log).
	Violated Verdict = "violated"
	// Inconclusive: no violation was found, but the checker gave up or
	// the history did not test what a pass needs.
	Inconclusive Verdict = "inconclusive"
	// Interrupted: the run was stopped before it ended and no violation
	// was found in what it recorded; what it would have exercised is
	// unknown, so it is no pass.
	Interrupted Verdict = "interrupted"
)

// A Gate is what decided a verdict: the checker's verdict on the history,
// or one of the rules a judgement adds to it (see rules.go).
type Gate string

// The gates, in the order decide consults them after the issuer's
// violations and one found by the checker.
const (
	// GateCheck: the checker's verdict stood (a violation, a pass, or a
	// check that gave up).
	GateCheck Gate = "check"
	// GateIssuer: the token issuer granted a token twice, or one below an
	// earlier grant's, on a resource (check.Result.Issuer): a violation
	// whatever the receiver did.
	GateIssuer Gate = "issuer"
	// GateExclusive: writes were accepted after their lease had been
	// reassigned, under Options.RequireExclusive.
	GateExclusive Gate = "exclusive"
	// GateReceiverLog: the receiver's log shows a sign of a bug (a panic,
	// a fatal error, a data race, a pattern asked for), a violation
	// whatever the history shows; or it could not be read, and a
	// judgement that would have held is inconclusive.
	GateReceiverLog Gate = "receiver-log"
	// GateInterrupted: the run was stopped early.
	GateInterrupted Gate = "interrupted"
	// GateEvidence: too little evidence for a verdict (an acknowledged
	// write and a read after it on every resource).
	GateEvidence Gate = "evidence"
	// GateMinStale: fewer stale writes than Options.MinStale.
	GateMinStale Gate = "min-stale"
	// GateFailover: the run has an issuer fault, and no lease was
	// granted after a server it took down came back.
	GateFailover Gate = "failover"
	// GateCrash: the receiver was crashed, or the run had a fault to
	// crash it, and no stale write reached it after a crash.
	GateCrash Gate = "crash"
)
