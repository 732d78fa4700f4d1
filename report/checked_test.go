package report

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/judge"
)

// TestCheckPrintsEachKindOnce: check's output tells the first cause (the
// earliest evidence, on b here although a sorts first) as its minimal
// counterexample and names it in the verdict; the same kind of violation
// on a is named, not told again.
func TestCheckPrintsEachKindOnce(t *testing.T) {
	t.Parallel()
	w := func(id int, res string, token uint64, value string, call, ret int64) histories.Operation {
		return histories.Operation{ID: id, Process: id, F: histories.FWrite, Resource: res, Token: token, HasToken: true,
			Value: value, HasValue: true, Status: histories.StatusAccepted, Call: call, Return: ret}
	}
	h := histories.FromOperations([]histories.Operation{
		w(0, "a", 2, "a2", 0, 1), w(1, "b", 2, "b2", 0, 1), w(2, "b", 1, "b1", 2, 3), w(3, "a", 1, "a1", 4, 5),
	})
	judged, err := judge.Judge(context.Background(), h, judge.DefaultOptions())
	require.NoError(t, err)
	rep := Checked{History: "h.jsonl", Report: judged}
	require.NotNil(t, rep.Minimal)
	assert.Equal(t, "b", rep.Minimal.Resource)
	text := rep.Summary()
	t.Log(text)
	assert.Contains(t, text, "first on b at 3ns: ")
	assert.Equal(t, 1, strings.Count(text, "minimal counterexample:"))
	assert.Equal(t, 1, strings.Count(text, `resource "b":`), "the first cause told once, as its counterexample")
	assert.Equal(t, 0, strings.Count(text, `resource "a":`), "the same kind on a is not told again")
	assert.Contains(t, text, "and 1 more resources like it (stale-accepted): a\n")
	assert.Contains(t, text, "finding        stale-accepted (2 resources): ")
}
