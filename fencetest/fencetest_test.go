package fencetest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/check"
	"github.com/fencecheck/fencecheck/targets/memory"
)

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	errors []string
	fatal  bool
	logs   []string
}

func (r *recorder) Helper()                   {}
func (r *recorder) Errorf(f string, a ...any) { r.errors = append(r.errors, fmt.Sprintf(f, a...)) }
func (r *recorder) Fatalf(f string, a ...any) { r.fatal = true; r.Errorf(f, a...) }
func (r *recorder) Logf(f string, a ...any)   { r.logs = append(r.logs, fmt.Sprintf(f, a...)) }

func TestRun(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		target string
		opts   Options
		fails  []string // what the failure message says; none: the test passes
	}{
		{name: "a correct receiver passes", target: "fenced", opts: Options{MinStale: 1}},
		{name: "an unfenced receiver fails with the minimal counterexample", target: "unfenced",
			fails: []string{"violated", "minimal counterexample:", "what the resource should have done", "report.html",
				"reproduce   go test -run '^TestRun$/^an_unfenced_receiver_fails_with_the_minimal_counterexample$' ./fencetest  # fencetest seed 1"}},
		{name: "a run that exercised no stale write fails the gate", target: "fenced", opts: Options{Nemesis: "none", MinStale: 1},
			fails: []string{"inconclusive", "NO STALE WRITE WAS SUBMITTED"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tgt, err := memory.Open(tc.target)
			require.NoError(t, err)
			rec := &recorder{TB: t}
			opts := tc.opts
			opts.Deterministic, opts.Store, opts.Duration = true, t.TempDir(), 2*time.Second
			res := Run(rec, tgt, opts)
			assert.False(t, rec.fatal)
			assert.DirExists(t, res.Dir, "the run directory is kept")
			assert.FileExists(t, filepath.Join(res.Dir, "report.html"))
			if len(tc.fails) == 0 {
				assert.Empty(t, rec.errors)
				assert.Equal(t, check.Held, res.Verdict)
				require.Len(t, rec.logs, 1)
				assert.Contains(t, rec.logs[0], res.Dir)
				return
			}
			require.Len(t, rec.errors, 1)
			for _, want := range tc.fails {
				assert.Contains(t, rec.errors[0], want)
			}
			assert.Contains(t, rec.errors[0], res.Dir, "the failure says where the run is kept")
		})
	}
}

func TestRunRejectsBadOptions(t *testing.T) {
	t.Parallel()
	rec := &recorder{TB: t}
	Run(rec, memory.NewFenced(), Options{Nemesis: "flood", Store: t.TempDir()})
	assert.True(t, rec.fatal)
	assert.True(t, strings.Contains(strings.Join(rec.errors, ""), "flood"))
}

func TestDefaultStoreIsKept(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("FENCETEST_STORE", dir)
	rec := &recorder{TB: t}
	res := Run(rec, memory.NewFenced(), Options{Deterministic: true, Ops: 200})
	assert.Empty(t, rec.errors)
	assert.True(t, strings.HasPrefix(res.Dir, dir))
	_, err := os.Stat(filepath.Join(dir, "latest"))
	assert.NoError(t, err)
}
