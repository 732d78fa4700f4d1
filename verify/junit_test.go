package verify

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/report"
)

// TestJUnitOneCasePerScenario: a CI user sees one case per scenario,
// failures with what was expected and observed and the root cause they
// may follow from, skips with why.
func TestJUnitOneCasePerScenario(t *testing.T) {
	t.Parallel()
	rep := Report{Target: "memory://one-store", Policy: "strict", Outcomes: []Row{
		{Scenario: "stale-after-newer", Hazard: "the article", Expected: "41 rejected", Observed: "41 accepted", Result: Fail, FollowsFrom: []string{"scope"}},
		{Scenario: "scope", Expected: "independent", Observed: "one store", Result: Fail},
		{Scenario: "restart-durability", Observed: "needs --exec", Result: Skip},
		{Scenario: "old-token-first", Result: Info},
	}}
	var b bytes.Buffer
	require.NoError(t, report.WriteJUnit(&b, JUnit(rep)))
	xml := b.String()
	assert.Equal(t, 4, bytes.Count(b.Bytes(), []byte("<testcase ")))
	assert.Contains(t, xml, `tests="4"`)
	assert.Contains(t, xml, `message="stale-after-newer (may follow from scope): expected 41 rejected, observed 41 accepted"`)
	assert.Contains(t, xml, "may follow from: scope (fix that first)")
	assert.Contains(t, xml, `message="scope: expected independent, observed one store"`)
	assert.Contains(t, xml, "needs --exec")
}
