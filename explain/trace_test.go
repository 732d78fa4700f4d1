package explain

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/model"
)

// tracedStale is a stale write accepted (token 4 after 5), with every
// operation's trace id when traced.
func tracedStale(traced bool) []histories.Operation {
	ops := new(hb).
		W(0, 4, "old", 0, 1, acc).
		W(1, 5, "new", 2, 3, acc).
		R(1, "new", 5, 4, 5).
		W(0, 3, "older", 6, 7, acc).
		Ops
	if traced {
		for i := range ops {
			ops[i].Trace = fmt.Sprintf("4bf92f3577b34da6a3ce929d0e0e47%02x", i)
		}
	}
	return ops
}

// TestTheCounterexampleNamesEachOperationsTrace: the minimal
// counterexample's text lists the full trace id of each operation it
// names, under its table; a history without trace ids prints as before.
func TestTheCounterexampleNamesEachOperationsTrace(t *testing.T) {
	t.Parallel()
	_, s := shrinkFirstCause(t, tracedStale(true), model.Strict)
	require.NotEmpty(t, s.Violation.Steps)
	var b strings.Builder
	require.NoError(t, WriteShrunk(&b, &s))
	out := b.String()
	t.Log(out)
	_, traces, ok := strings.Cut(out, "trace ids, to find each operation's requests in the receiver's logs:\n")
	require.True(t, ok, out)
	for i, st := range s.Violation.Steps {
		want := fmt.Sprintf("4bf92f3577b34da6a3ce929d0e0e47%02x", st.OpID)
		assert.Equal(t, want, st.Trace, "step %d", i+1)
		assert.Contains(t, traces, fmt.Sprintf("  step %d  op %d  process %d  trace %s\n", i+1, st.OpID, st.Process, want))
	}
	for _, op := range s.Ops {
		assert.NotEmpty(t, op.Trace, "op %d of the minimal history keeps its trace id", op.ID)
	}

	_, plain := shrinkFirstCause(t, tracedStale(false), model.Strict)
	b.Reset()
	require.NoError(t, WriteViolation(&b, plain.Violation))
	assert.NotContains(t, b.String(), "trace")

	// The table is the same with trace ids as without.
	untraced := s.Violation
	untraced.Steps = slices.Clone(untraced.Steps)
	for i := range untraced.Steps {
		untraced.Steps[i].Trace = ""
	}
	var with, without strings.Builder
	require.NoError(t, WriteViolation(&with, s.Violation))
	require.NoError(t, WriteViolation(&without, untraced))
	assert.True(t, strings.HasPrefix(with.String(), without.String()+"trace ids, "), with.String())
}
