package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
)

// TestAPassNeedsAStaleWrite: a gate relies on exit 0 meaning the
// protected case was tested. A run that never sent the receiver a stale
// write is inconclusive (exit 2) whatever its nemesis, none included;
// --min-stale 0 opts out explicitly, and the pass then says it tested no
// stale write, in the verdict line and result.json alike.
func TestAPassNeedsAStaleWrite(t *testing.T) {
	t.Parallel()
	dir := schema.TempDir(t)
	r := fencecheck(t, dir, "run", "--target", "memory://fenced", "--nemesis", "none", "--seed", "1", "--store", "s")
	assert.Equal(t, exitInconclusive, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "verdict     INCONCLUSIVE: 0 stale writes were submitted, and a pass needs at least 1: ")
	assert.Contains(t, r.stdout, "NO STALE WRITE WAS SUBMITTED")

	r = fencecheck(t, dir, "run", "--target", "memory://fenced", "--nemesis", "none", "--seed", "1", "--store", "s", "--min-stale", "0")
	assert.Equal(t, exitHeld, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "verdict     HELD (no stale write tested): ")
	assert.NotContains(t, r.stdout, "\npower ", "a pass that tested no stale write bounds nothing")
	var res struct {
		Verdict string `json:"verdict"`
		Reason  string `json:"reason"`
		Power   struct {
			StaleTested int     `json:"stale_tested"`
			Bound       float64 `json:"stale_acceptance_bound"`
		} `json:"power"`
	}
	data, err := os.ReadFile(filepath.Join(newestRun(t, filepath.Join(dir, "s")), "result.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &res))
	assert.Equal(t, "held", res.Verdict)
	assert.Contains(t, res.Reason, "but the protected case was not tested")
	assert.Zero(t, res.Power.StaleTested)
	assert.Equal(t, 1.0, res.Power.Bound, "nothing is ruled out")
}

// TestAPassStatesItsPower: a pass tells a gate owner what it tested and
// how hard: each hazard's count, and the rate of stale writes accepted it
// rules out at 95 %, in the terminal, summary.txt, result.json (which
// the schema validates when the test's directory is cleaned up) and the
// JUnit suite.
func TestAPassStatesItsPower(t *testing.T) {
	t.Parallel()
	dir := schema.TempDir(t)
	r := fencecheck(t, dir, "run", "--target", "memory://fenced", "--seed", "7", "--store", "s", "--junit", "junit.xml")
	require.Equal(t, exitHeld, r.code, r.stdout+r.stderr)
	t.Log(r.stdout)
	for _, want := range []string{"stale writes (", "equal-token repeats", "old tokens accepted before the newer one arrived", "concurrent writes on one resource",
		"unknown outcomes", "receiver crashes", "verdict     HELD: ", "power       a receiver that accepted 1 stale write in "} {
		assert.Contains(t, r.stdout, want)
	}
	run := newestRun(t, filepath.Join(dir, "s"))
	summary, err := os.ReadFile(filepath.Join(run, "summary.txt"))
	require.NoError(t, err)
	assert.Contains(t, string(summary), "power       a receiver that accepted 1 stale write in ")
	var res struct {
		Coverage struct {
			StaleWrites, StaleRejected int
			Concurrent                 int `json:"concurrent_writes"`
		} `json:"coverage"`
		Power struct {
			StaleTested int     `json:"stale_tested"`
			Bound       float64 `json:"stale_acceptance_bound"`
		} `json:"power"`
	}
	data, err := os.ReadFile(filepath.Join(run, "result.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &res))
	require.Positive(t, res.Power.StaleTested)
	assert.Greater(t, res.Power.Bound, 0.0)
	assert.Less(t, res.Power.Bound, 1.0)
	assert.Positive(t, res.Coverage.Concurrent, "eight workers on four resources overlap")
	junit, err := os.ReadFile(filepath.Join(dir, "junit.xml"))
	require.NoError(t, err)
	assert.Contains(t, string(junit), `name="power" value="a receiver that accepted 1 stale write in `)
	assert.Contains(t, string(junit), `name="exercised: concurrent writes"`)
}
