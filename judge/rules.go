package judge

import (
	"fmt"
	"strings"

	"github.com/fencecheck/fencecheck/check"
	"github.com/fencecheck/fencecheck/explain"
	"github.com/fencecheck/fencecheck/internal/termsafe"
	"github.com/fencecheck/fencecheck/model"
)

// A decision is what a rule decided: the verdict, the gate that decided
// it, and the reason in words.
type decision struct {
	verdict Verdict
	gate    Gate
	reason  string
}

// A rule decides a verdict when it applies to a judged history, and says
// nothing (false) otherwise.
type rule func(r *Report, o *Options) (decision, bool)

// rules are consulted in this order; the first that applies decides. A
// violation found is a violation even in an interrupted run; nothing
// else is a pass unless the history was checked to the end, on evidence,
// with every hazard it was asked to exercise, and the receiver's log,
// when there is one, was read.
var rules = []rule{
	issuerBroke,
	receiverViolated,
	exclusiveBroken,
	logShowsBug,
	stoppedEarly,
	checkerGaveUp,
	thinEvidence,
	tooFewStale,
	crashUntested,
	failoverUntested,
	logUnread,
}

// decide applies the rules to r, and holds when none applies.
func decide(r *Report, o *Options) decision {
	for _, apply := range rules {
		if d, ok := apply(r, o); ok {
			return d
		}
	}
	return held(r)
}

// held is the verdict when no rule applies. A pass that tested no stale
// write (its caller opted out with MinStale 0) says so first.
func held(r *Report) decision {
	reason := "every resource's history is linearizable for " + modelName(&r.Check)
	if r.Coverage.StaleWrites == 0 {
		reason += ", but the protected case was not tested: no older owner's write reached the resource after a newer one's, and the stale-write gate was set to 0"
	}
	return decision{Held, GateCheck, reason}
}

// NoStaleTested is how a pass that tested no stale write is qualified
// wherever its verdict is shown: "HELD (no stale write tested)".
const NoStaleTested = "no stale write tested"

// issuerBroke: a grant that breaks the token issuer's invariant makes the
// verdict violated whatever the receiver did, as fencing is void when
// tokens are reused or go backwards. The reason names the issuer first,
// then what the receiver's own verdict would be.
func issuerBroke(r *Report, o *Options) (decision, bool) {
	if len(r.Check.Issuer) == 0 {
		return decision{}, false
	}
	receiver := receiverAlone(r, o)
	return decision{Violated, GateIssuer, issuerReason(r.Check.Issuer, receiver.verdict, receiver.reason)}, true
}

// receiverAlone is the verdict the receiver's history alone would get
// from the checker and its evidence, for the issuer's reason.
func receiverAlone(r *Report, o *Options) decision {
	for _, apply := range []rule{receiverViolated, checkerGaveUp, thinEvidence} {
		if d, ok := apply(r, o); ok {
			return d
		}
	}
	return held(r)
}

// receiverViolated: the checker found a resource with no legal order.
// The reason names the first cause, the violation whose evidence was
// complete earliest, which the minimal counterexample shrinks.
func receiverViolated(r *Report, _ *Options) (decision, bool) {
	if r.Check.Verdict != check.Violated {
		return decision{}, false
	}
	reason := fmt.Sprintf("the history is not linearizable for %s on %d of %d resources", modelName(&r.Check), len(r.Check.Violations), r.Check.Resources)
	if f := r.rootCause(); f != nil {
		// The root cause first: the other violations may follow from it.
		more := ""
		if f.Count > 1 {
			more = fmt.Sprintf(" (and %d more resources like it)", f.Count-1)
		}
		return decision{Violated, GateCheck, fmt.Sprintf("%s: %s%s; %s", f.Title, f.First, more, reason)}, true
	}
	if i := r.Check.First(); i >= 0 {
		reason += "; first on " + r.Check.Violations[i].Headline()
	}
	return decision{Violated, GateCheck, reason}, true
}

// exclusiveBroken: under the exclusive requirement, a write accepted
// after its lease had ended is a violation.
func exclusiveBroken(r *Report, _ *Options) (decision, bool) {
	if len(r.Exclusive) == 0 {
		return decision{}, false
	}
	return decision{Violated, GateExclusive, fmt.Sprintf("%d writes were accepted after their lease had ended (exclusive requirement)", len(r.Exclusive))}, true
}

// logShowsBug: a sign of a bug in the receiver's log is a violation
// whatever the history shows: the receiver's answers were right by luck.
func logShowsBug(r *Report, _ *Options) (decision, bool) {
	if !r.ReceiverLog.Fails() {
		return decision{}, false
	}
	return decision{Violated, GateReceiverLog, r.ReceiverLog.Reason()}, true
}

// stoppedEarly: a run stopped before its end found no violation in what
// it recorded, but what it would have exercised is unknown.
func stoppedEarly(r *Report, o *Options) (decision, bool) {
	if o.Stopped == nil {
		return decision{}, false
	}
	return decision{Interrupted, GateInterrupted, fmt.Sprintf("the run was stopped early; no violation in what it recorded, but it exercised only %d stale writes", r.Coverage.StaleWrites)}, true
}

// checkerGaveUp: a check that ran out of time is never a pass.
func checkerGaveUp(r *Report, _ *Options) (decision, bool) {
	if r.Check.Verdict != check.Inconclusive {
		return decision{}, false
	}
	return decision{Inconclusive, GateCheck, fmt.Sprintf("the checker gave up on %d resources (%s)", len(r.Check.TimedOut), termsafe.String(strings.Join(r.Check.TimedOut, ", ")))}, true
}

// thinEvidence: a checker finds no violation where nothing was tested,
// so a history that gives it nothing to stand on (histories.Evidence) is
// inconclusive, with the first errors the target answered with.
func thinEvidence(r *Report, _ *Options) (decision, bool) {
	if r.Evidence.Enough() {
		return decision{}, false
	}
	return decision{Inconclusive, GateEvidence, "too little evidence for a verdict: " + r.Evidence.Reason()}, true
}

// tooFewStale: a run that sent fewer stale writes than it asked for did
// not test what fencing is for.
func tooFewStale(r *Report, o *Options) (decision, bool) {
	if r.Coverage.StaleWrites >= o.MinStale {
		return decision{}, false
	}
	return decision{Inconclusive, GateMinStale, fmt.Sprintf("%d stale writes were submitted, and a pass needs at least %d: %s", r.Coverage.StaleWrites, o.MinStale, r.StaleCause(o))}, true
}

// StaleCause says why a run submitted no stale write (or fewer than it
// asked for), as far as the history and the run's faults tell.
func (r *Report) StaleCause(o *Options) string {
	makers := 0
	for _, f := range o.StaleFaults {
		makers += r.Coverage.FaultActions[f]
	}
	switch {
	case r.Counts.Accepted+r.Counts.Rejected == 0:
		return "no write was acknowledged: every write failed or went unanswered"
	case len(o.StaleFaults) == 0:
		return "no fault of the run holds a worker or a write until a newer token was accepted (pause, delay and hold do)"
	case makers == 0:
		return "the faults that make stale writes never acted: the fault phase ended before they did (lengthen the duration)"
	}
	return fmt.Sprintf("the faults acted (%d fault actions), but no held worker's lease expired and was reassigned while it was held (lengthen the duration or shorten the lease TTL)", makers)
}

// crashUntested: a history whose receiver was crashed, or a run with a
// fault that crashes it, tests whether it keeps its highest token across
// a crash only if a stale write reached it after a crash: a receiver
// that forgets its tokens when it restarts passes every other write.
func crashUntested(r *Report, o *Options) (decision, bool) {
	return untested(GateCrash, r.CrashUntested(o))
}

// untested is the decision of a coverage gate: inconclusive for why,
// when there is a why.
func untested(gate Gate, why string) (decision, bool) {
	if why == "" {
		return decision{}, false
	}
	return decision{Inconclusive, gate, why}, true
}

// CrashUntested says why a history with crashes of the receiver, or a
// run with a fault that crashes it (Options.CrashFaults), has no stale
// write the receiver answered after a crash, or "" when it has one or
// neither.
func (r *Report) CrashUntested(o *Options) string {
	cov := r.Coverage
	if cov.StaleAfterCrash > 0 || cov.Crashes == 0 && len(o.CrashFaults) == 0 {
		return ""
	}
	why := "the receiver was never crashed: the fault phase ended before the crash fault acted"
	if cov.Crashes > 0 {
		why = fmt.Sprintf("of %d stale writes (%d unknown) over %d receiver crashes, none was sent after a crash with a token below one accepted before it and answered", cov.StaleWrites, cov.StaleUnknown, cov.Crashes)
	}
	return "no stale write reached the receiver after it was crashed and started again, so whether it keeps its highest token across a crash was not tested: " + why
}

// failoverUntested: a run with issuer faults tests the token sequence
// across a failover only if a lease was granted after a server it took
// down came back.
func failoverUntested(r *Report, o *Options) (decision, bool) {
	return untested(GateFailover, r.FailoverUntested(o))
}

// FailoverUntested says why a run with issuer faults (Options.IssuerFaults)
// has no lease granted after an outage, or "" when it has one or has no
// issuer fault.
func (r *Report) FailoverUntested(o *Options) string {
	cov := r.Coverage
	if len(o.IssuerFaults) == 0 || cov.GrantsAfterFailover > 0 {
		return ""
	}
	outages := 0
	for _, f := range o.IssuerFaults {
		outages += cov.FaultActions[f]
	}
	why := "the issuer faults never acted: no worker reached its pause point in the fault phase"
	if outages > 0 {
		why = fmt.Sprintf("the run's work ended before a server came back (%d outages, %d leader changes)", outages, cov.LeaderChanges)
	}
	return "no lease was granted after an issuer server came back from an outage, so the token sequence across a failover was not exercised: " + why
}

// logUnread: a receiver's log that could not be read to its end may hide
// a panic or a race, so a judgement that would have held is not a pass.
func logUnread(r *Report, _ *Options) (decision, bool) {
	if !r.ReceiverLog.Unread() {
		return decision{}, false
	}
	return decision{Inconclusive, GateReceiverLog, r.ReceiverLog.UnreadReason()}, true
}

// issuerReason is the reason of a verdict that the token issuer's
// violations decided: the issuer named first, with its first violation,
// then the receiver's own verdict, reason and all.
func issuerReason(issuer []check.IssuerViolation, receiver Verdict, reason string) string {
	first := issuer[0].String()
	if n := len(issuer) - 1; n > 0 {
		first += fmt.Sprintf(" (and %d more issuer violations)", n)
	}
	switch receiver {
	case Held:
		return fmt.Sprintf("the token issuer, not the receiver: %s; the receiver's history is linearizable given these tokens", first)
	case Violated:
		return fmt.Sprintf("the token issuer, and the receiver too: %s; and %s", first, reason)
	}
	return fmt.Sprintf("the token issuer, not the receiver: %s; the receiver's verdict alone is %s: %s", first, receiver, reason)
}

// modelName names the model a result judged against, for a reason.
func modelName(res *explain.Result) string {
	if res.Model == model.KindRegister.String() {
		return "a plain register"
	}
	return fmt.Sprintf("a fenced register (%s policy)", res.Policy)
}

// rootCause is the first finding on the receiver's history that others
// may follow from (scope, restart), nil when there is none.
func (r *Report) rootCause() *Finding {
	for i := range r.Findings {
		if f := &r.Findings[i]; f.RootCause && f.example >= 0 {
			return f
		}
	}
	return nil
}
