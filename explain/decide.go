package explain

import (
	"fmt"
	"strings"

	"github.com/fencecheck/fencecheck/check"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/internal/termsafe"
	"github.com/fencecheck/fencecheck/model"
)

// Decide turns a check into the verdict a release gate can rely on, with
// its reason: the checker's verdict, except that "held" needs evidence. A
// checker finds no violation where nothing was tested, so a history that
// gives it nothing to stand on (histories.Evidence) is inconclusive, with
// the first errors the target answered with, never held.
//
// A grant that breaks the token issuer's invariant (Result.Issuer) makes
// the verdict violated whatever the receiver did, as fencing is void when
// tokens are reused or go backwards; the reason names the issuer first
// and then says what the receiver's verdict alone would be (issuerReason).
func Decide(res Result, ev histories.Evidence) (check.Verdict, string) {
	verdict, reason := decideReceiver(res, ev)
	if len(res.Issuer) > 0 {
		return check.Violated, issuerReason(res.Issuer, verdict, reason)
	}
	return verdict, reason
}

// decideReceiver is Decide for the receiver's history alone.
func decideReceiver(res Result, ev histories.Evidence) (check.Verdict, string) {
	switch res.Verdict {
	case check.Violated:
		reason := fmt.Sprintf("the history is not linearizable for %s on %d of %d resources", modelName(res), len(res.Violations), res.Resources)
		if i := res.First(); i >= 0 {
			// The first cause: the violation whose evidence was complete
			// earliest, which the minimal counterexample shrinks.
			v := res.Violations[i]
			reason += fmt.Sprintf("; first on %s at %s: %s", termsafe.String(v.Resource), when(v.At), v.Summary)
		}
		return check.Violated, reason
	case check.Inconclusive:
		return check.Inconclusive, fmt.Sprintf("the checker gave up on %d resources (%s)", len(res.TimedOut), termsafe.String(strings.Join(res.TimedOut, ", ")))
	}
	if !ev.Enough() {
		return check.Inconclusive, "too little evidence for a verdict: " + ev.Reason()
	}
	return check.Held, "every resource's history is linearizable for " + modelName(res)
}

// modelName names the model a result judged against, for a reason.
func modelName(res Result) string {
	if res.Model == model.KindRegister.String() {
		return "a plain register"
	}
	return fmt.Sprintf("a fenced register (%s policy)", res.Policy)
}
