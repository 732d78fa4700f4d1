package models

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStatesBefore(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		before *hb
		want   []State
	}{
		{"nothing before: unwritten", new(hb), []State{{}}},
		{"the highest accepted write", new(hb).w(0, 1, "a", 0, 5, acc).w(1, 2, "b", 10, 15, acc).w(0, 1, "c", 20, 25, rej),
			[]State{{Token: 2, Value: "b", Written: true}}},
		{"an unknown write that may have come after it", new(hb).w(0, 2, "b", 0, 5, acc).w(1, 3, "c", 10, 0, unk),
			[]State{{Token: 3, Value: "c", Written: true}, {Token: 2, Value: "b", Written: true}}},
		{"an unknown write alone: unwritten or written", new(hb).w(1, 3, "c", 10, 0, unk),
			[]State{{}, {Token: 3, Value: "c", Written: true}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, StatesBefore(tc.before.ops, Strict))
		})
	}
}

// TestModelFromStartsMidHistory guards the one assumption VisualizeView
// makes about porcupine: a converted model's state is the set of states.
func TestModelFromStartsMidHistory(t *testing.T) {
	t.Parallel()
	window := new(hb).r(0, "b", 2, 0, 5).w(1, 1, "stale", 10, 15, rej).w(1, 3, "c", 20, 25, acc)
	ops := ToPorcupine(window.ops)
	assert.False(t, porcupine.CheckOperations(Model(Options{}), ops), "from the start, the read of b is unexplained")
	init := []State{{Token: 2, Value: "b", Written: true}, {}}
	assert.True(t, porcupine.CheckOperations(modelFrom(Options{}, init), ops))
	var buf bytes.Buffer
	require.NoError(t, VisualizeView(&buf, View{Groups: []Group{{Resource: "report", Ops: window.ops}}, Init: init}, Options{}, time.Second))
	// The read's state, "b" at token 2, appears in the linearization.
	assert.True(t, strings.Contains(buf.String(), "b\\u0026#34; @2}"), "the visualization starts from the given state")
}
