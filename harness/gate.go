package harness

// A Gate is what decided a run's verdict: the checker's verdict on the
// history, or one of the gates the run adds to it.
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
	// reassigned, under Config.RequireExclusive.
	GateExclusive Gate = "exclusive"
	// GateReceiverLog: the receiver's log shows a sign of a bug (a panic,
	// a fatal error, a data race, a pattern asked for), a violation
	// whatever the history shows; or it could not be read, and a run
	// that would have held is inconclusive.
	GateReceiverLog Gate = "receiver-log"
	// GateInterrupted: the run was stopped early.
	GateInterrupted Gate = "interrupted"
	// GateEvidence: too little evidence for a verdict (an acknowledged
	// write and a read after it on every resource).
	GateEvidence Gate = "evidence"
	// GateMinStale: fewer stale writes than Config.MinStale.
	GateMinStale Gate = "min-stale"
	// GateFailover: the run has an issuer fault, and no lease was
	// granted after a server it took down came back.
	GateFailover Gate = "failover"
)
