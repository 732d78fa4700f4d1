package report

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/check"
	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/explain"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/model"
	"github.com/fencecheck/fencecheck/runstore"
)

// twoStaleWrites has a stale write accepted on a (evidence complete at 3)
// and on b (at 5): a is the first cause.
func twoStaleWrites() *histories.History {
	w := func(id int, res string, token uint64, value string, call, ret int64) histories.Operation {
		return histories.Operation{ID: id, Process: id, F: histories.FWrite, Resource: res, Token: token, HasToken: true,
			Value: value, HasValue: true, Status: histories.StatusAccepted, Call: call, Return: ret, InvokeIndex: int64(2 * id), CompleteIndex: int64(2*id + 1)}
	}
	return histories.FromOperations([]histories.Operation{
		w(0, "a", 2, "a2", 0, 1), w(1, "b", 2, "b2", 0, 1), w(2, "a", 1, "a1", 2, 3), w(3, "b", 1, "b1", 4, 5),
	})
}

// TestEachViolationIsToldOnce: the JUnit cases and the report tell the
// first cause as its minimal counterexample and the other violation as
// itself, each once.
func TestEachViolationIsToldOnce(t *testing.T) {
	t.Parallel()
	h := twoStaleWrites()
	opts := check.Options{Policy: model.Strict}
	checked, err := check.Check(context.Background(), h, opts)
	require.NoError(t, err)
	ops := h.Expand(nil)
	res := explain.Explain(ops, checked, opts)
	require.Len(t, res.Violations, 2)
	first := res.Violations[res.First()]
	require.Equal(t, "a", first.Resource)
	s, ok, err := explain.Shrink(context.Background(), ops, h.Others, first, opts, explain.DefaultShrinkOptions())
	require.NoError(t, err)
	require.True(t, ok)
	a, b := res.Violations[0].Summary, res.Violations[1].Summary

	cases := CheckCases(res, []string{"a", "b"}, &s)
	require.Len(t, cases, 2)
	ta, tb := cases[0].Failure.Text, cases[1].Failure.Text
	assert.Equal(t, 1, strings.Count(ta, "minimal counterexample"), ta)
	assert.Equal(t, 1, strings.Count(ta, a), ta)
	assert.Equal(t, 0, strings.Count(ta, b), ta)
	assert.Equal(t, 0, strings.Count(tb, "minimal counterexample"), tb)
	assert.Equal(t, 1, strings.Count(tb, b), tb)

	many := CheckCases(res, make([]string, maxResourceCases+1), &s)
	require.Len(t, many, 1)
	text := many[0].Failure.Text
	assert.Equal(t, 1, strings.Count(text, a), text)
	assert.Equal(t, 1, strings.Count(text, b), text)
	assert.Contains(t, many[0].Failure.Message, "first: "+a)

	dir := schema.TempDir(t)
	in := Input{Title: "t", Verdict: judge.Verdict(res.Verdict), Reason: "because", History: h, Check: res, Options: opts, Minimal: &s}
	_, err = Write(dir, in, DefaultLimits())
	require.NoError(t, err)
	page := read(t, dir, runstore.Report)
	assert.Equal(t, 1, strings.Count(page, escape(s.Violation.Summary)), "the first cause, in the minimal counterexample")
	if a != s.Violation.Summary {
		assert.Equal(t, 0, strings.Count(page, escape(a)), "the first cause is not told again")
	}
	assert.Equal(t, 1, strings.Count(page, escape(b)), "the other violation")
	assert.Contains(t, page, "Other violations by resource")
}

func escape(s string) string { return strings.ReplaceAll(s, `"`, "&#34;") }

// TestIssuerCaseComesFirst: the token issuer's violations are a failed
// case of their own, before the receiver's; without them there is none.
func TestIssuerCaseComesFirst(t *testing.T) {
	t.Parallel()
	held := explain.Result{Result: check.Result{Verdict: check.Held}}
	assert.Len(t, CheckCases(held, []string{"a"}, nil), 1)

	held.Issuer = []check.IssuerViolation{
		{Kind: check.Reused, Resource: "a", Token: 57, Earlier: 57, Index: 9, EarlierIndex: 4, Holder: 2, EarlierHolder: 1},
		{Kind: check.NotIncreasing, Resource: "a", Token: 41, Earlier: 57, Index: 12, EarlierIndex: 4, Holder: 3, EarlierHolder: 1},
	}
	cases := CheckCases(held, []string{"a"}, nil)
	require.Len(t, cases, 2)
	require.NotNil(t, cases[0].Failure)
	assert.Equal(t, "token issuer", cases[0].Name)
	assert.Equal(t, "2 issuer violations; first: "+held.Issuer[0].String(), cases[0].Failure.Message)
	assert.Equal(t, held.Issuer[0].String()+"\n"+held.Issuer[1].String(), cases[0].Failure.Text)
	assert.Nil(t, cases[1].Failure, "the receiver held")
}
