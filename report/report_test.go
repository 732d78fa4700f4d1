package report

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

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

// input checks h and describes it as a caller would.
func input(t *testing.T, h *histories.History, shrink bool) Input {
	t.Helper()
	opts := check.Options{Policy: model.Strict, Timeout: 30 * time.Second, Checker: check.Porcupine}
	checked, err := check.Check(context.Background(), h, opts)
	require.NoError(t, err)
	ops := h.Expand(nil)
	res := explain.Explain(ops, checked, opts)
	in := Input{Title: "memory://test", Verdict: judge.Verdict(res.Verdict), Reason: "because", Command: "fencecheck run --target memory://test --seed 1",
		History: h, Check: res, Options: opts, NotCovered: []string{"NO STALE WRITE WAS SUBMITTED", "no duplicate"},
		Exercised: []Fact{{"stale writes", "3"}}, Config: []Fact{{"seed", "1"}}}
	if shrink && res.Verdict == check.Violated {
		s, ok, err := explain.Shrink(context.Background(), ops, h.Others, res.Violations[0], opts, explain.DefaultShrinkOptions())
		require.NoError(t, err)
		require.True(t, ok)
		in.Minimal = &s
	}
	return in
}

// external finds references a page would fetch from the network.
var external = regexp.MustCompile(`(?i)(src|href)\s*=\s*["']?(https?:)?//|<link\b|@import|url\(\s*["']?https?:`)

func TestReportOfAViolation(t *testing.T) {
	t.Parallel()
	dir := schema.TempDir(t)
	in := input(t, history(600, 3, true), true)
	require.Equal(t, judge.Violated, in.Verdict)
	w, err := Write(dir, in, DefaultLimits())
	require.NoError(t, err)
	assert.Len(t, w.Files, 4)

	page := read(t, dir, runstore.Report)
	has(t, page, `<div class="verdict violated" id="verdict"><b>violated</b>because</div>`)
	has(t, page, "fencecheck run --target memory://test --seed 1")
	has(t, page, "Minimal counterexample")
	has(t, page, `class="violating"`, "the culprit's row is marked")
	has(t, page, "stale write accepted")
	assert.Equal(t, 2, strings.Count(page, `<svg role="img" class="plot"`), "both plots are inline SVG")
	has(t, page, `class="loud"`, "the missing stale write is shouted")
	lacks(t, page, "<script", "the report needs no JavaScript")
	assert.Empty(t, external.FindAllString(page, -1), "the report is self-contained")
	has(t, page, `href="timeline.html"`)

	for _, f := range []string{runstore.Timeline, runstore.Minimal} {
		p := read(t, dir, f)
		has(t, p, "back to the report", f)
		assert.Empty(t, external.FindAllString(p, -1), "%s is self-contained", f)
		has(t, p, "violation r1", "%s marks the steps", f)
	}
	back, err := histories.Read(t.Context(), histories.Source{Path: filepath.Join(dir, runstore.MinimalHistory)})
	require.NoError(t, err)
	again, err := check.Check(context.Background(), back, in.Options)
	require.NoError(t, err)
	assert.Equal(t, check.Violated, again.Verdict, "minimal.jsonl re-checks as invalid")
	assert.LessOrEqual(t, len(back.Ops), 6)
}

func TestReportOfAValidHistory(t *testing.T) {
	t.Parallel()
	dir := schema.TempDir(t)
	in := input(t, history(300, 2, false), true)
	require.Equal(t, judge.Held, in.Verdict)
	w, err := Write(dir, in, DefaultLimits())
	require.NoError(t, err)
	assert.Len(t, w.Files, 2, "no minimal counterexample for a valid history")
	page := read(t, dir, runstore.Report)
	has(t, page, `<b>held</b>`)
	lacks(t, page, "Minimal counterexample")
	has(t, read(t, dir, runstore.Timeline), "All 300 operations on 2 resources.")
}

func TestReportEscapesWhatTheHistorySays(t *testing.T) {
	t.Parallel()
	ops, others := historyOps(50, 1, false)
	ops[0].Resource = "<script>alert(1)</script>"
	in := input(t, build(ops, others), false)
	in.Title = `<img src=x onerror=alert(1)>`
	dir := schema.TempDir(t)
	_, err := Write(dir, in, DefaultLimits())
	require.NoError(t, err)
	page := read(t, dir, runstore.Report)
	lacks(t, page, "<script>alert")
	lacks(t, page, "<img src=x")
}

func TestWriteRefusesLimitsThatCannotBe(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		set  func(*Limits)
		want string
	}{
		{"zero limits", func(l *Limits) { *l = Limits{} }, "PlotPoints: 0, want at least 1"},
		{"no table rows", func(l *Limits) { l.TableRows = 0 }, "TableRows: 0"},
		{"negative timeline", func(l *Limits) { l.TimelineOps = -1 }, "TimelineOps: -1"},
		{"negative timeout", func(l *Limits) { l.CheckTimeout = -1 }, "CheckTimeout: negative"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			lim := DefaultLimits()
			tc.set(&lim)
			_, err := Write(schema.TempDir(t), input(t, history(10, 1, false), false), lim)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// TestTimelineStaysBounded: big histories get a bounded part, and the page
// says which.
func TestTimelineStaysBounded(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		h     *histories.History
		note  string
		limit int
	}{
		{"valid: a sample of a few resources", history(20000, 8, false), "A sample: the first", 1000},
		{"violation: its resource alone", history(3000, 4, true), "Only resource r1", 1000},
		{"violation: a window of its resource", history(20000, 2, true), "A window around the first violation", 1000},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in := input(t, tc.h, false)
			var buf bytes.Buffer
			note, err := writeTimeline(&buf, &in, Limits{TimelineOps: tc.limit, CheckTimeout: 10 * time.Second})
			require.NoError(t, err)
			assert.Contains(t, note, tc.note)
			has(t, buf.String(), tc.note, "the page says what it shows")
			assert.Less(t, buf.Len(), 2<<20, "the page stays small")
			if in.Verdict == judge.Violated {
				has(t, buf.String(), "violation r1", "the violation is in view")
			}
			v, _ := chooseView(&in, tc.limit)
			n := 0
			for _, g := range v.Groups {
				n += len(g.Ops)
			}
			assert.LessOrEqual(t, n, tc.limit+10)
		})
	}
}

func TestWindowAroundPrefersCleanCuts(t *testing.T) {
	t.Parallel()
	// Operations 0..9 one after another, except 4 and 5, which overlap.
	var ops []histories.Operation
	for i := range 10 {
		ops = append(ops, histories.Operation{ID: i, Call: int64(10 * i), Return: int64(10*i + 5)})
	}
	ops[4].Return = 55
	clean := cleanCuts(ops)
	assert.False(t, clean[5], "operation 4 is still open when 5 begins")
	assert.True(t, clean[4])
	assert.Equal(t, 1, inFlight(ops, 5))
	from, to := windowAround(ops, 6, 6, 4)
	assert.Equal(t, 6, from+1+(6-from-1), "the step stays in the window")
	assert.LessOrEqual(t, to-from, 4)
	assert.NotEqual(t, 5, from, "never cut between two overlapping operations when a clean cut exists")
}

func read(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	require.NoError(t, err)
	return string(b)
}

// has and lacks check a page for a string without printing the page.
func has(t *testing.T, page, sub string, msg ...any) {
	t.Helper()
	if !strings.Contains(page, sub) {
		t.Errorf("page lacks %q %v", sub, msg)
	}
}

func lacks(t *testing.T, page, sub string, msg ...any) {
	t.Helper()
	if strings.Contains(page, sub) {
		t.Errorf("page has %q %v", sub, msg)
	}
}

func TestMergeWindowsBoundsTheBands(t *testing.T) {
	t.Parallel()
	var ws []window
	for i := range int64(10000) {
		ws = append(ws, window{"pause", i * 1000, i*1000 + 400})
	}
	merged := mergeWindows(ws, 10000*1000)
	assert.LessOrEqual(t, len(merged), windowBins)
	assert.Equal(t, int64(0), merged[0].from)
	assert.Equal(t, []window{{"a", 0, 30}, {"c", 500, 600}}, mergeWindows([]window{{"c", 500, 600}, {"a", 0, 10}, {"b", 5, 30}}, 1000))
}
