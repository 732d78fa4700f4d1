package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/check"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/model"
)

// TestModelFromStartsMidHistory guards the one assumption VisualizeView
// makes about porcupine: a converted model's state is the set of states.
func TestModelFromStartsMidHistory(t *testing.T) {
	t.Parallel()
	window := []histories.Operation{
		{ID: 0, Process: 0, Resource: "report", F: histories.FRead, Value: "b", HasValue: true, Token: 2, HasToken: true, Status: histories.StatusOK, Call: 0, Return: 5},
		{ID: 1, Process: 1, Resource: "report", F: histories.FWrite, Value: "stale", HasValue: true, Token: 1, HasToken: true, Status: histories.StatusRejected, Call: 10, Return: 15},
		{ID: 2, Process: 1, Resource: "report", F: histories.FWrite, Value: "c", HasValue: true, Token: 3, HasToken: true, Status: histories.StatusAccepted, Call: 20, Return: 25},
	}
	ops := model.ToPorcupine(window)
	assert.False(t, porcupine.CheckOperations(model.Porcupine(model.KindFenced, model.Strict), ops), "from the start, the read of b is unexplained")
	init := []model.State{{Token: 2, Value: "b", Written: true}, {}}
	assert.True(t, porcupine.CheckOperations(model.PorcupineFrom(model.KindFenced, model.Strict, init), ops))
	var buf bytes.Buffer
	require.NoError(t, VisualizeView(&buf, View{Groups: []model.Group{{Resource: "report", Ops: window}}, Init: init}, check.Options{}, time.Second))
	// The read's state, "b" at token 2, appears in the linearization.
	assert.True(t, strings.Contains(buf.String(), "b\\u0026#34; @2}"), "the visualization starts from the given state")
}
