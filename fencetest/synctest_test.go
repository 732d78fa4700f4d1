package fencetest

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/harness"
	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/targets/httptarget/exampleapi"
	"github.com/fencecheck/fencecheck/targets/memory"
)

// TestRunSynctest: RunSynctest runs any target that waits on nothing
// outside the process, here the memory targets, on a bubble's clock: ten
// seconds of run find the broken receivers and pass the fenced one.
func TestRunSynctest(t *testing.T) {
	t.Parallel()
	cases := []struct {
		target string
		want   judge.Verdict
	}{
		{"fenced", judge.Held},
		{"check-then-set", judge.Violated},
		{"unfenced", judge.Violated},
	}
	for _, tc := range cases {
		t.Run(tc.target, func(t *testing.T) {
			t.Parallel()
			tgt, err := memory.Open(tc.target)
			require.NoError(t, err)
			rec := &recorder{TB: t}
			cfg := Config(rec, tgt)
			cfg.Store.Dir, cfg.Workload.Duration = schema.TempDir(t), 10*time.Second
			res := RunSynctest(rec, cfg)
			require.False(t, rec.fatal, "%v", rec.errors)
			assert.Equal(t, tc.want, res.Verdict, res.Reason)
			assert.True(t, res.Config.VirtualClock)
			assert.Equal(t, tc.want != judge.Held, len(rec.errors) == 1, "a violation fails the test: %v", rec.errors)
		})
	}
}

// TestHandlerWithAnAdapter: Options.Adapter names the adapter file of a
// handler with an API of its own; a bad one fails the test naming it.
func TestHandlerWithAnAdapter(t *testing.T) {
	t.Parallel()
	adapter := filepath.Join("..", "docs", "adapters", "query-token.json")
	cases := []struct {
		name    string
		bug     exampleapi.Bug
		adapter string
		want    judge.Verdict
		fatal   string
	}{
		{"a correct receiver holds", exampleapi.Correct, adapter, judge.Held, ""},
		{"one that applies every write is violated", exampleapi.NoComparison, adapter, judge.Violated, ""},
		{"a missing adapter file", exampleapi.Correct, "missing.json", "", "fencetest: read adapter: open missing.json"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := &recorder{TB: t}
			o := DefaultOptions()
			o.Synctest, o.Adapter = true, tc.adapter
			o.Config = func(c *harness.Config) { c.Store.Dir, c.Workload.Duration = schema.TempDir(t), 3*time.Second }
			res := Handler(rec, exampleapi.QueryToken(tc.bug), o)
			if tc.fatal != "" {
				assert.True(t, rec.fatal)
				require.Len(t, rec.errors, 1)
				assert.Contains(t, rec.errors[0], tc.fatal)
				return
			}
			require.False(t, rec.fatal, "%v", rec.errors)
			assert.Equal(t, tc.want, res.Verdict, res.Reason)
		})
	}
}

// withoutTestingT is a T that neither is nor wraps a *testing.T.
type withoutTestingT struct{ T }

// TestSynctestNeedsATestingT: synctest.Test takes a *testing.T; a T that
// cannot give one fails the test saying so, and runs nothing.
func TestSynctestNeedsATestingT(t *testing.T) {
	t.Parallel()
	rec := &recorder{TB: t}
	o := DefaultOptions()
	o.Synctest = true
	o.Config = func(c *harness.Config) { c.Store.Dir = schema.TempDir(t) }
	res := Handler(withoutTestingT{rec}, newTokenStore(0), o)
	assert.True(t, rec.fatal)
	require.Len(t, rec.errors, 1)
	assert.Contains(t, rec.errors[0], "needs a *testing.T (or a T with a method TestingT() *testing.T); fencetest.withoutTestingT is neither")
	assert.Empty(t, res.Dir, "nothing ran")
}
