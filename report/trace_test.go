package report

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/runstore"
)

// traced is history(…) with a trace id on every operation, as an HTTP or
// SQL target's run records them.
func traced(n, k int) *histories.History {
	ops, others := historyOps(n, k, true)
	for i := range ops {
		ops[i].Trace = fmt.Sprintf("4bf92f3577b34da6%016x", i+1)
	}
	return build(ops, others)
}

// TestTheReportShowsEachNamedOperationsTrace: the report's tables (the
// minimal counterexample's story, the violations by resource) and the
// timelines' marks of the steps show the full trace id of every
// operation they name, and the minimal history keeps them.
func TestTheReportShowsEachNamedOperationsTrace(t *testing.T) {
	t.Parallel()
	for _, shrink := range []bool{true, false} {
		t.Run(fmt.Sprint("shrunk ", shrink), func(t *testing.T) {
			t.Parallel()
			dir := schema.TempDir(t)
			in := input(t, traced(200, 3), shrink)
			require.Equal(t, judge.Violated, in.Verdict)
			_, err := Write(dir, in, DefaultLimits())
			require.NoError(t, err)
			page, timeline := read(t, dir, runstore.Report), read(t, dir, runstore.Timeline)
			code := func(id string) string {
				return `<code class="trace" title="W3C trace id of its requests: search the receiver's logs for it">` + id + `</code>`
			}
			for _, st := range in.Check.Violations[0].Steps {
				require.NotEmpty(t, st.Trace)
				has(t, timeline, "trace "+st.Trace, "the timeline's mark of op", st.OpID)
				if !shrink {
					has(t, page, code(st.Trace), "the violation's row of op", st.OpID)
				}
			}
			if shrink {
				for _, op := range in.Minimal.Ops {
					has(t, page, code(op.Trace), "the story's row of op", op.ID)
				}
				back, err := histories.Read(t.Context(), histories.Source{Path: filepath.Join(dir, runstore.MinimalHistory)})
				require.NoError(t, err)
				for _, op := range back.Expand(nil) {
					require.NotEmpty(t, op.Trace, "minimal.jsonl keeps op %d's trace id", op.ID)
				}
			}
		})
	}
}

// TestAReportWithoutTraceIDsShowsNone: a history without trace ids (a
// memory target's) has no trace cells.
func TestAReportWithoutTraceIDsShowsNone(t *testing.T) {
	t.Parallel()
	dir := schema.TempDir(t)
	_, err := Write(dir, input(t, history(200, 3, true), true), DefaultLimits())
	require.NoError(t, err)
	lacks(t, read(t, dir, runstore.Report), `<code class="trace"`)
	lacks(t, read(t, dir, runstore.Timeline), "; trace ")
}
