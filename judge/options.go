package judge

import (
	"time"

	"github.com/fencecheck/fencecheck/check"
	"github.com/fencecheck/fencecheck/explain"
	"github.com/fencecheck/fencecheck/logscan"
)

// Options are what a judgement needs besides the history: how to check
// it, and the gates a pass must meet. DefaultOptions gives the defaults;
// a zero field means zero (no shrinking, no stale write asked for).
type Options struct {
	// Check chooses the model, the policy, the checker and the check's
	// time bound.
	Check check.Options
	// ShrinkTimeout bounds the search for a minimal counterexample of the
	// first violation; 0: do not shrink.
	ShrinkTimeout time.Duration
	// MinStale makes a judgement inconclusive unless at least this many
	// stale writes reached the receiver (Coverage.StaleWrites): a pass
	// that never sent the receiver an older owner's write tested nothing
	// fencing is for. 0 is the explicit opt-out, and a pass then says it
	// tested no stale write.
	MinStale int
	// RequireExclusive also fails accepted writes sent after their lease
	// had ended on the issuer or been reassigned, which fencing allows.
	RequireExclusive bool
	// StaleFaults name the faults of the run that exist to make stale
	// writes (pause, delay, hold): they say why a run submitted none.
	StaleFaults []string
	// IssuerFaults name the faults of the run that take the token
	// issuer's servers down: a pass then needs a lease granted after one
	// came back (GateFailover).
	IssuerFaults []string
	// CrashFaults name the faults of the run that crash the receiver and
	// start it again: a pass then needs a stale write the receiver
	// answered after a crash (GateCrash), even if none acted.
	CrashFaults []string
	// ReceiverLog is what the log of a receiver fencecheck started
	// showed, read once it stopped; nil when there was none.
	ReceiverLog *logscan.Outcome
	// Stopped is why the run was stopped before it ended (its context's
	// cause); nil for a run that ran to its end, or a recorded history.
	Stopped error
	_       struct{}
}

// DefaultCheckTimeout bounds a check unless the caller says otherwise: a
// check that runs out of time is inconclusive, never held.
const DefaultCheckTimeout = 60 * time.Second

// DefaultMinStale is the stale writes a pass needs unless its caller
// opts out: one, whatever the faults (none included).
const DefaultMinStale = 1

// DefaultOptions are the judgement every command makes unless told
// otherwise: the fenced register under the strict policy, the fast
// checker, a check of at most DefaultCheckTimeout, the shrinker's default
// budget, and a pass only on a history with at least DefaultMinStale
// stale writes.
func DefaultOptions() Options {
	return Options{Check: check.Options{Timeout: DefaultCheckTimeout}, ShrinkTimeout: explain.DefaultShrinkOptions().Timeout,
		MinStale: DefaultMinStale}
}
