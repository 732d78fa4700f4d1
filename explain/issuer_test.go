package explain

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fencecheck/fencecheck/check"
	"github.com/fencecheck/fencecheck/histories"
)

// TestDecideNamesTheIssuer: an issuer violation makes the verdict
// violated, names the issuer first and keeps the receiver's own verdict
// in the reason; without one, Decide is the receiver's verdict.
func TestDecideNamesTheIssuer(t *testing.T) {
	t.Parallel()
	reused := check.IssuerViolation{Kind: check.Reused, Resource: "r1", Token: 57, Earlier: 57, Index: 388, EarlierIndex: 120, Holder: 5, EarlierHolder: 3}
	lower := check.IssuerViolation{Kind: check.NotIncreasing, Resource: "r1", Token: 41, Earlier: 57, Index: 400, EarlierIndex: 388, Holder: 2, EarlierHolder: 5}
	enough := histories.Evidence{Resources: 1}
	thin := histories.Evidence{Resources: 1, Thin: []histories.ThinResource{{Resource: "r1", Why: "no read"}}}
	held := check.Result{Verdict: check.Held, Model: "fenced", Policy: "strict", Resources: 1}
	violated := Result{Result: check.Result{Verdict: check.Violated, Model: "fenced", Policy: "strict", Resources: 1},
		Violations: []Violation{{Resource: "r1", Summary: "a stale write was accepted"}}}
	withIssuer := func(r Result, v ...check.IssuerViolation) Result { r.Issuer = v; return r }
	cases := []struct {
		name    string
		res     Result
		ev      histories.Evidence
		verdict check.Verdict
		reason  string
	}{
		{"receiver held, no issuer violation", Result{Result: held}, enough, check.Held,
			"every resource's history is linearizable for a fenced register (strict policy)"},
		{"receiver held, token reused", withIssuer(Result{Result: held}, reused), enough, check.Violated,
			"the token issuer, not the receiver: the issuer handed token 57 on resource r1 to two workers (worker 3 at index 120, worker 5 at index 388); the receiver's history is linearizable given these tokens"},
		{"two issuer violations", withIssuer(Result{Result: held}, reused, lower), enough, check.Violated,
			"the token issuer, not the receiver: the issuer handed token 57 on resource r1 to two workers (worker 3 at index 120, worker 5 at index 388) (and 1 more issuer violations); the receiver's history is linearizable given these tokens"},
		{"receiver violated too", withIssuer(violated, lower), enough, check.Violated,
			"the token issuer, and the receiver too: the issuer granted token 41 after token 57 on resource r1 (worker 2 at index 400, after worker 5 at index 388); and the history is not linearizable for a fenced register (strict policy) on 1 of 1 resources; first on r1 at 0s: a stale write was accepted"},
		{"receiver without evidence", withIssuer(Result{Result: held}, reused), thin, check.Violated,
			"the token issuer, not the receiver: the issuer handed token 57 on resource r1 to two workers (worker 3 at index 120, worker 5 at index 388); the receiver's verdict alone is inconclusive: too little evidence for a verdict: "},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			verdict, reason := Decide(tc.res, tc.ev)
			assert.Equal(t, tc.verdict, verdict)
			if strings.HasSuffix(tc.reason, ": ") {
				assert.True(t, strings.HasPrefix(reason, tc.reason), reason)
				return
			}
			assert.Equal(t, tc.reason, reason)
		})
	}
}

// TestWriteViolationsIssuerFirst: the issuer's violations are written
// before the receiver's, at most maxIssuerShown of them.
func TestWriteViolationsIssuerFirst(t *testing.T) {
	t.Parallel()
	res := Result{Result: check.Result{Verdict: check.Violated}, Violations: []Violation{{Resource: "r1", Summary: "a stale write was accepted"}}}
	for i := range maxIssuerShown + 2 {
		res.Issuer = append(res.Issuer, check.IssuerViolation{Kind: check.Reused, Resource: "r1", Token: uint64(i), Earlier: uint64(i), Index: int64(2*i + 1), EarlierIndex: int64(2 * i), Holder: 1})
	}
	var b strings.Builder
	assert.NoError(t, WriteViolations(&b, &res, nil))
	out := b.String()
	assert.True(t, strings.HasPrefix(out, "\nthe token issuer broke its invariant"), out)
	assert.Less(t, strings.Index(out, "the issuer handed token 9 "), strings.Index(out, `resource "r1": a stale write`), out)
	assert.NotContains(t, out, "the issuer handed token 10 ")
	assert.Contains(t, out, "  ... and 2 more\n")
}
