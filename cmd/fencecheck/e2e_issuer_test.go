package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
)

// TestCheckReportsTheIssuer: a history whose issuer handed one token to
// two workers is violated by the issuer, even though the receiver's
// history is linearizable; one whose receiver is violated as well names
// both, the issuer first.
func TestCheckReportsTheIssuer(t *testing.T) {
	t.Parallel()
	dir := schema.TempDir(t)
	testdata, err := filepath.Abs("testdata")
	require.NoError(t, err)
	cases := []struct {
		history string
		verdict string
		// later follows the issuer's violations in the output.
		later string
	}{
		{"issuer-reused.jsonl",
			"verdict        VIOLATED: the token issuer, not the receiver: the issuer handed token 57 on resource r1 to two workers (worker 3 at index 1, worker 5 at index 4); the receiver's history is linearizable given these tokens\n",
			""},
		{"issuer-and-receiver.jsonl",
			"verdict        VIOLATED: the token issuer, and the receiver too: the issuer granted token 41 after token 57 on resource r1 (worker 2 at index 4, after worker 1 at index 0); and the history is not linearizable for a fenced register (strict policy) on 1 of 1 resources; first on r1 at 3.2µs: stale write accepted: ",
			"minimal counterexample: 2 of 3 operations on r1"},
	}
	for _, tc := range cases {
		t.Run(tc.history, func(t *testing.T) {
			t.Parallel()
			r := fencecheck(t, dir, "check", filepath.Join(testdata, tc.history))
			assert.Equal(t, 1, r.code, r.stdout+r.stderr)
			assert.Contains(t, r.stdout, tc.verdict)
			issuer := strings.Index(r.stdout, "\nthe token issuer broke its invariant")
			require.Positive(t, issuer, r.stdout)
			if tc.later != "" {
				assert.Greater(t, strings.Index(r.stdout, tc.later), issuer, r.stdout)
			}
		})
	}
	t.Run("json", func(t *testing.T) {
		t.Parallel()
		r := fencecheck(t, dir, "check", "--json", filepath.Join(testdata, "issuer-reused.jsonl"))
		require.Equal(t, 1, r.code, r.stderr)
		var got struct {
			Verdict string `json:"verdict"`
			Check   struct {
				Verdict string `json:"verdict"`
				Issuer  []struct {
					Kind   string `json:"kind"`
					Token  uint64 `json:"token"`
					Index  int64  `json:"index"`
					Worker int    `json:"worker"`
				} `json:"issuer_violations"`
			} `json:"check"`
		}
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &got))
		assert.Equal(t, "violated", got.Verdict)
		assert.Equal(t, "held", got.Check.Verdict, "the receiver's own verdict")
		require.Len(t, got.Check.Issuer, 1)
		assert.Equal(t, "reused", got.Check.Issuer[0].Kind)
		assert.Equal(t, uint64(57), got.Check.Issuer[0].Token)
		assert.Equal(t, int64(4), got.Check.Issuer[0].Index)
		assert.Equal(t, 5, got.Check.Issuer[0].Worker)
	})
}

// TestLocalLeasesKeepTheIssuersInvariant: the histories today's lease
// service writes, the replay's and a memory run's with pauses and delays,
// have no issuer finding.
func TestLocalLeasesKeepTheIssuersInvariant(t *testing.T) {
	t.Parallel()
	dir := schema.TempDir(t)
	require.Equal(t, 0, fencecheck(t, dir, "replay").code)
	run := fencecheck(t, dir, "run", "--target", "memory://fenced", "--seed", "5", "--nemesis", "pause,delay", "--store", "s")
	require.Equal(t, 0, run.code, run.stdout+run.stderr)
	assert.NotContains(t, run.stdout, "issuer")
	histories := []string{filepath.Join("s", "latest", "history.jsonl")}
	for _, trace := range []string{"unfenced", "fenced", "repeated-token", "old-token-first"} {
		histories = append(histories, filepath.Join("replay-out", trace+".jsonl"))
	}
	for _, h := range histories {
		t.Run(h, func(t *testing.T) {
			r := fencecheck(t, dir, "check", h)
			assert.NotEqual(t, 3, r.code, r.stderr)
			assert.NotContains(t, r.stdout, "issuer", r.stdout)
		})
	}
}
