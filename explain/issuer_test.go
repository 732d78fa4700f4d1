package explain

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fencecheck/fencecheck/check"
)

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
