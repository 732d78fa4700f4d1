package browse

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/harness"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/internal/files"
	"github.com/fencecheck/fencecheck/runstore"
	"github.com/fencecheck/fencecheck/targets"
	"github.com/fencecheck/fencecheck/targets/memory"
	"github.com/fencecheck/fencecheck/verify"
)

// battery plays the verify battery against a memory target into the
// store, writing what fencecheck verify writes.
func battery(t *testing.T, store, name string) {
	t.Helper()
	tgt, err := memory.Open(name)
	require.NoError(t, err)
	dir, err := runstore.Create(store, "verify-memory-"+name, time.Now())
	require.NoError(t, err)
	f, err := os.Create(filepath.Join(dir, runstore.History))
	require.NoError(t, err)
	rec := histories.NewRecorder(f, histories.RecorderOptions{})
	opts := verify.DefaultOptions()
	opts.Recorder = rec
	outcomes, err := verify.Run(context.Background(), tgt, opts)
	require.NoError(t, err)
	require.NoError(t, rec.Close())
	rep := verify.Report{Target: "memory://" + name, Policy: opts.Policy.String(), Passed: verify.Passed(outcomes), Dir: dir, Outcomes: outcomes}
	require.NoError(t, files.Write(filepath.Join(dir, runstore.Table), "table", func(w io.Writer) error { return verify.WriteTable(w, outcomes) }))
	require.NoError(t, files.Write(filepath.Join(dir, runstore.Result), "result", func(w io.Writer) error { return verify.WriteJSON(w, rep) }))
	require.NoError(t, runstore.Publish(store, dir))
}

// interruptAfter cancels the run after a number of writes, as Ctrl-C
// would.
type interruptAfter struct {
	*memory.Fenced
	writes int
	cancel context.CancelFunc
}

func (c *interruptAfter) Write(ctx context.Context, resource string, token uint64, value string) (histories.Outcome, error) {
	if c.writes--; c.writes == 0 {
		c.cancel()
	}
	return c.Fenced.Write(ctx, resource, token, value)
}

// unreachable fails its set-up, as a receiver that does not answer.
type unreachable struct{ *memory.Fenced }

func (unreachable) Setup(context.Context) error { return errors.New("receiver does not answer") }

// tokenless holds a value from an earlier run and reads no token, so the
// run stops after observing it, with a history and no result.
type tokenless struct{ *memory.Fenced }

func (t tokenless) Read(ctx context.Context, resource string) (targets.Reading, error) {
	r, err := t.Fenced.Read(ctx, resource)
	r.Token, r.HasToken = 0, false
	return r, err
}

// kindsStore records one run directory of every kind with the real
// writers, the interrupted run last, so that it is latest.
func kindsStore(t *testing.T) string {
	t.Helper()
	store := schema.TempDir(t)
	// Killed: what a run has recorded when SIGKILL stops it, its history.
	killed, err := run(t, context.Background(), store, "killed", memory.NewFenced(), nil)
	require.NoError(t, err)
	entries, err := os.ReadDir(killed.Dir)
	require.NoError(t, err)
	for _, e := range entries {
		if e.Name() != runstore.History {
			require.NoError(t, os.Remove(filepath.Join(killed.Dir, e.Name())))
		}
	}
	// Failed after recording the state before the run: history and error.
	left := memory.NewFenced()
	_, err = left.Write(context.Background(), "r0", 17, "left-over")
	require.NoError(t, err)
	_, err = run(t, context.Background(), store, "failed", tokenless{left}, func(c *harness.Config) {
		c.Workload.Resources, c.Workload.ResourceNames = 1, []string{"r0"}
	})
	require.Error(t, err)
	// Failed at set-up: nothing.
	_, err = run(t, context.Background(), store, "unreachable", unreachable{memory.NewFenced()}, nil)
	require.Error(t, err)

	_, err = run(t, context.Background(), store, "held", memory.NewFenced(), nil)
	require.NoError(t, err)
	_, err = run(t, context.Background(), store, "no-report", memory.NewUnfenced(), func(c *harness.Config) {
		c.Target.Name, c.Store.NoReport, c.Workload.Ops = "memory://unfenced", true, 300
	})
	require.NoError(t, err)
	battery(t, store, "fenced")
	battery(t, store, "unfenced")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err = run(t, ctx, store, "interrupted", &interruptAfter{Fenced: memory.NewFenced(), writes: 30, cancel: cancel}, nil)
	require.NoError(t, err)
	return store
}

var (
	hrefs    = regexp.MustCompile(`href="([^"]*)"`)
	labels   = regexp.MustCompile(`<a href="/runs/[^"]*">([^<]*)</a>`)
	statuses = regexp.MustCompile(`class="pill ([a-z]+)"[^>]*>([^<]*)<`)
)

// TestEveryKindOfRunHasAMeaningfulRow: each kind of run directory (a run
// with and without a report, a passing and a failing verify battery, an
// interrupted run, a killed run with only its history, a run that failed
// after recording, one that failed at set-up) shows its target, its status
// and links only to files it has; every link on the page answers 200, and
// /latest/ follows store/latest to a run with a result.
func TestEveryKindOfRunHasAMeaningfulRow(t *testing.T) {
	t.Parallel()
	store := kindsStore(t)
	s, err := New(store)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	code, _, page := get(t, ts, http.MethodGet, "/")
	require.Equal(t, http.StatusOK, code)

	cases := []struct {
		name, target, class, status string
		links                       []string
		check, reason               string
	}{
		{"held", "memory://fenced", "held", "held", []string{"report", "timeline", "summary", "result.json", "history"}, "", ""},
		{"no-report", "memory://unfenced", "violated", "violated", []string{"summary", "result.json", "history"}, "", ""},
		{"verify-memory-fenced", "memory://fenced", "held", "passed", []string{"table", "result.json", "history"}, "", "7 passed, 0 failed, 1 info, 1 skipped"},
		{"verify-memory-unfenced", "memory://unfenced", "violated", "failed", []string{"table", "result.json", "history"}, "", " failed"},
		{"interrupted", "memory://fenced", "interrupted", "interrupted", []string{"report", "timeline", "summary", "result.json", "history"}, "", ""},
		{"killed", "", "incomplete", "no result", []string{"history"}, "fencecheck check " + filepath.Join(store, "killed"), "killed, or is still running"},
		{"failed", "", "error", "error", []string{"error", "history"}, "fencecheck check " + filepath.Join(store, "failed"), "observe r0 before the run"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			row := rowOf(page, tc.name)
			require.NotEmpty(t, row, "no row for %s", tc.name)
			if tc.target != "" {
				assert.Contains(t, row, "<code>"+tc.target+"</code>")
			} else {
				assert.Contains(t, row, ">unknown<", "a run without result.json has no recorded target")
			}
			st := statuses.FindStringSubmatch(row)
			require.NotNil(t, st, row)
			assert.Equal(t, []string{tc.class, tc.status}, st[1:], "status")
			var got []string
			for _, m := range labels.FindAllStringSubmatch(row, -1) {
				got = append(got, m[1])
			}
			assert.Equal(t, tc.links, got, "links")
			if tc.check != "" {
				assert.Contains(t, row, tc.check)
				assert.Contains(t, row, runstore.History+"</code>")
			} else {
				assert.NotContains(t, row, "fencecheck check")
			}
			assert.Contains(t, row, tc.reason)
			if tc.name == "interrupted" {
				assert.Contains(t, row, `<span class="latest">`)
			} else {
				assert.NotContains(t, row, `<span class="latest">`)
			}
		})
	}
	assert.Empty(t, rowOf(page, "unreachable"), "a run that never started leaves no row")

	t.Run("every link answers 200", func(t *testing.T) {
		links := hrefs.FindAllStringSubmatch(page, -1)
		require.Greater(t, len(links), 20)
		for _, m := range links {
			resp, err := ts.Client().Get(ts.URL + m[1]) // follows /latest/
			require.NoError(t, err)
			resp.Body.Close()
			assert.Equal(t, http.StatusOK, resp.StatusCode, m[1])
		}
	})
	t.Run("/latest/ follows latest", func(t *testing.T) {
		code, h, _ := get(t, ts, http.MethodGet, "/latest/")
		assert.Equal(t, http.StatusFound, code)
		assert.Regexp(t, `^/runs/interrupted/[^/]+/report\.html$`, h.Get("Location"))
	})
	t.Run("a run's page", func(t *testing.T) {
		for name, want := range map[string]string{"held": "report.html", "no-report": "summary.txt", "verify-memory-fenced": "table.txt", "failed": "error.txt"} {
			dir, err := filepath.Glob(filepath.Join(store, name, "*"))
			require.NoError(t, err)
			require.Len(t, dir, 1)
			code, h, _ := get(t, ts, http.MethodGet, "/runs/"+name+"/"+filepath.Base(dir[0])+"/")
			assert.Equal(t, http.StatusFound, code, name)
			assert.Equal(t, "/runs/"+name+"/"+filepath.Base(dir[0])+"/"+want, h.Get("Location"), name)
		}
		dir, err := filepath.Glob(filepath.Join(store, "killed", "*"))
		require.NoError(t, err)
		require.Len(t, dir, 1)
		code, _, body := get(t, ts, http.MethodGet, "/runs/killed/"+filepath.Base(dir[0])+"/")
		assert.Equal(t, http.StatusNotFound, code)
		assert.Contains(t, body, "has no result: it was killed or is still running")
		assert.Contains(t, body, "fencecheck check "+filepath.Join(dir[0], runstore.History))
	})
}

// TestLatestWithoutAResult: in a store where latest names a run without a
// result (written by a fencecheck from before runs waited for one),
// /latest/ says so and where the history is, rather than a bare 404.
func TestLatestWithoutAResult(t *testing.T) {
	t.Parallel()
	store := schema.TempDir(t)
	dir := filepath.Join(store, "killed", "20260102T030405.000Z")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, files.Write(filepath.Join(dir, runstore.History), "history", func(w io.Writer) error { // a history that recorded nothing
		return histories.Write(w, nil)
	}))
	require.NoError(t, os.Symlink("killed/20260102T030405.000Z", filepath.Join(store, runstore.Latest)))
	s, err := New(store)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/latest/", nil))
	assert.Equal(t, http.StatusNotFound, rec.Code)
	assert.Contains(t, rec.Body.String(), "run killed/20260102T030405.000Z has no result")
	assert.Contains(t, rec.Body.String(), "fencecheck check "+filepath.Join(dir, runstore.History))
}

// TestResultFormats: a store keeps runs written by older fencechecks, so
// a result.json of every format up to this one's is shown as its run
// recorded it (format 1, before check --json and result.json shared the
// judgement's schema, holds the same fields a row shows); one of a newer
// format is not guessed at: its row says to browse it with a newer
// fencecheck.
func TestResultFormats(t *testing.T) {
	t.Parallel()
	store := t.TempDir() // not validated: holds a result of a format this fencecheck does not write
	for format := 1; format <= runstore.ResultFormat+1; format++ {
		dir := filepath.Join(store, fmt.Sprintf("format-%d", format), "20260102T030405.000Z")
		require.NoError(t, os.MkdirAll(dir, 0o755))
		res := fmt.Sprintf(`{"format":%d,"verdict":"held","reason":"fine","started":"2026-01-02T03:04:05Z","counts":{"operations":835},"coverage":{"stale_writes":11},"config":{"target":"memory://fenced"}}`, format)
		require.NoError(t, os.WriteFile(filepath.Join(dir, runstore.Result), []byte(res), 0o644))
	}
	s, err := New(store)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	code, _, page := get(t, ts, http.MethodGet, "/")
	require.Equal(t, http.StatusOK, code)
	for format := 1; format <= runstore.ResultFormat; format++ {
		row := rowOf(page, fmt.Sprintf("format-%d", format))
		assert.Equal(t, []string{"held", "held"}, statuses.FindStringSubmatch(row)[1:], "format %d", format)
		assert.Contains(t, row, "<code>memory://fenced</code>")
	}
	newer := rowOf(page, fmt.Sprintf("format-%d", runstore.ResultFormat+1))
	assert.Equal(t, []string{"error", "unreadable"}, statuses.FindStringSubmatch(newer)[1:])
	assert.Contains(t, newer, "newer than this fencecheck reads")
}
