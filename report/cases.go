package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fencecheck/fencecheck/explain"
	"github.com/fencecheck/fencecheck/histories"
)

// maxResourceCases: above this many resources, linearizability is one
// case for the whole model rather than one per resource.
const maxResourceCases = 100

// CheckCases returns the JUnit cases of a check: linearizability of each
// resource (or of the model as a whole, for many resources), failed with
// its violation told once: the first cause's resource with its minimal
// counterexample when there is one, the others with their violations.
// When the token issuer broke its invariant, a failed case says so first.
func CheckCases(check explain.Result, resources []string, minimal *explain.Shrunk) []Case {
	return append(issuerCases(check), receiverCases(check, resources, minimal)...)
}

// issuerCases is the failed case of the token issuer's violations, or
// none when it has none.
func issuerCases(check explain.Result) []Case {
	if len(check.Issuer) == 0 {
		return nil
	}
	lines := make([]string, len(check.Issuer))
	for i, v := range check.Issuer {
		lines[i] = v.String()
	}
	msg := lines[0]
	if len(lines) > 1 {
		msg = fmt.Sprintf("%d issuer violations; first: %s", len(lines), msg)
	}
	return []Case{{Name: "token issuer", Classname: "issuer", Failure: &Failure{Type: "issuer violation", Message: msg, Text: strings.Join(lines, "\n")}}}
}

// receiverCases are the cases of the receiver's linearizability.
func receiverCases(check explain.Result, resources []string, minimal *explain.Shrunk) []Case {
	violated := make(map[string]explain.Violation)
	for _, v := range check.Violations {
		violated[v.Resource] = v
	}
	gaveUp := make(map[string]bool)
	for _, r := range check.TimedOut {
		gaveUp[r] = true
	}
	class := fmt.Sprintf("linearizable.%s.%s", check.Model, check.Policy)
	if len(resources) > maxResourceCases {
		c := Case{Name: fmt.Sprintf("%s model, %s policy, %d resources", check.Model, check.Policy, len(resources)), Classname: class, Time: check.Elapsed}
		if len(check.Violations) > 0 {
			var b strings.Builder
			_ = explain.WriteViolations(&b, &check, minimal)
			msg := check.Violations[check.First()].Summary
			if len(check.Violations) > 1 {
				msg = fmt.Sprintf("%d resources violated; first: %s", len(check.Violations), msg)
			}
			c.Failure = &Failure{Type: "violation", Message: msg, Text: strings.TrimPrefix(b.String(), "\n")}
		} else if len(check.TimedOut) > 0 {
			c.Error = &Failure{Type: "inconclusive", Message: fmt.Sprintf("the checker gave up on %d resources", len(check.TimedOut)), Text: strings.Join(check.TimedOut, "\n")}
		}
		return []Case{c}
	}
	var cases []Case
	for _, r := range resources {
		c := Case{Name: "resource " + r, Classname: class}
		if v, ok := violated[r]; ok {
			c.Failure = violationFailure(v, minimal)
		} else if gaveUp[r] {
			c.Error = &Failure{Type: "inconclusive", Message: "the checker gave up on resource " + r + ": it ran out of time"}
		}
		cases = append(cases, c)
	}
	return cases
}

// violationFailure tells a resource's violation: as its minimal
// counterexample when it is the resource shrunk.
func violationFailure(v explain.Violation, minimal *explain.Shrunk) *Failure {
	var b strings.Builder
	if minimal != nil && minimal.Resource == v.Resource {
		_ = explain.WriteShrunk(&b, minimal)
	} else {
		_ = explain.WriteViolation(&b, v)
	}
	return &Failure{Type: "violation", Message: v.Summary, Text: b.String()}
}

// Resources returns the names of the resources the operations of h
// touch, sorted.
func Resources(h *histories.History) []string {
	var out []string
	for r := range h.Resources() {
		out = append(out, h.ResourceName(uint32(r)))
	}
	slices.Sort(out)
	return out
}
