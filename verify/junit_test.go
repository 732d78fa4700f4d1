package verify

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/report"
)

func TestJUnitOneCasePerScenario(t *testing.T) {
	t.Parallel()
	rep := Report{Target: "memory://unfenced", Policy: "strict", Outcomes: []Row{
		{Scenario: "stale-after-newer", Hazard: "the article", Expected: "41 rejected", Observed: "41 accepted", Result: Fail},
		{Scenario: "scope", Expected: "independent", Observed: "independent", Result: Pass},
		{Scenario: "restart-durability", Observed: "needs --exec", Result: Skip},
		{Scenario: "old-token-first", Result: Info},
	}}
	var b bytes.Buffer
	require.NoError(t, report.WriteJUnit(&b, JUnit(rep)))
	xml := b.String()
	assert.Equal(t, 4, bytes.Count(b.Bytes(), []byte("<testcase ")))
	assert.Contains(t, xml, `tests="4"`)
	assert.Contains(t, xml, "expected 41 rejected, observed 41 accepted")
	assert.Contains(t, xml, "needs --exec")
}
