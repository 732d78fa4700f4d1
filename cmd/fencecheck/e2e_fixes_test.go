package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
)

var strategyOrder = []string{"none", "longer-lease", "renew", "check-before-write", "fencing"}

// fixesJSON is compare-fixes --json.
type fixesJSON struct {
	Target        string `json:"target"`
	Seed          uint64 `json:"seed"`
	Deterministic bool   `json:"deterministic"`
	Rows          []struct {
		Strategy      string `json:"strategy"`
		Verdict       string `json:"verdict"`
		StaleWrites   int    `json:"stale_writes"`
		StaleAccepted int    `json:"stale_accepted"`
		Jobs          int    `json:"jobs"`
		LatencyP50    int64  `json:"latency_p50_ns"`
		LatencyP99    int64  `json:"latency_p99_ns"`
		Unnecessary   *int   `json:"unnecessary_reassignments"`
		Dir           string `json:"dir"`
		Command       string `json:"reproduce"`
	} `json:"rows"`
}

// TestCompareFixes runs the built binary's compare-fixes against the
// receiver that ignores tokens and the one that checks them, as
// docs/fixes.md shows: exit 0 (a comparison, not a gate), one row per strategy
// in the article's order, only fencing holding against memory://fenced,
// every strategy with stale writes accepted against memory://unfenced,
// each row a stored run of its own strategy, the same table for the
// same seed, and a reproduce line per row that repeats its run.
func TestCompareFixes(t *testing.T) {
	t.Parallel()
	for _, target := range []string{"memory://unfenced", "memory://fenced"} {
		t.Run(target, func(t *testing.T) {
			t.Parallel()
			dir := schema.TempDir(t)
			r := fencecheck(t, dir, "compare-fixes", "--target", target, "--seed", "7", "--store", "store")
			require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			assert.Contains(t, r.stdout, "target      "+target+" (seed 7; deterministic: the same seed prints the same table)")
			assert.Contains(t, r.stdout, "strategy            stale writes accepted  verdict")
			var rows []string
			row := regexp.MustCompile(`^(\S+)\s+(\d+) of (\d+)\s+(held|violated \(\d of 4 resources\)|inconclusive)\s+\S+\s+\S+\s+\d+\s+\d+$`)
			for _, line := range strings.Split(r.stdout, "\n") {
				if m := row.FindStringSubmatch(line); m != nil {
					rows = append(rows, m[1])
					wantHeld := target == "memory://fenced" && m[1] == "fencing"
					assert.Equal(t, wantHeld, m[4] == "held", line)
					assert.Equal(t, wantHeld, m[2] == "0", "stale writes accepted: %s", line)
				}
			}
			assert.Equal(t, strategyOrder, rows, r.stdout)

			j := fencecheck(t, dir, "compare-fixes", "--target", target, "--seed", "7", "--store", "store", "--json")
			require.Equal(t, 0, j.code, j.stderr)
			var table fixesJSON
			require.NoError(t, json.Unmarshal([]byte(j.stdout), &table))
			assert.True(t, table.Deterministic)
			require.Len(t, table.Rows, len(strategyOrder))
			for i, row := range table.Rows {
				assert.Equal(t, strategyOrder[i], row.Strategy)
				assert.Positive(t, row.StaleWrites, row.Strategy)
				assert.Positive(t, row.Jobs, row.Strategy)
				assert.LessOrEqual(t, row.LatencyP50, row.LatencyP99, row.Strategy)
				require.NotNil(t, row.Unnecessary, row.Strategy)
				if target == "memory://fenced" && row.Strategy == "fencing" {
					assert.Equal(t, "held", row.Verdict)
					assert.Zero(t, row.StaleAccepted)
				} else {
					assert.Equal(t, "violated", row.Verdict, row.Strategy)
					assert.Positive(t, row.StaleAccepted, row.Strategy)
				}
				var res struct {
					Config struct {
						ClientStrategy string `json:"client_strategy"`
					} `json:"config"`
				}
				b, err := os.ReadFile(filepath.Join(dir, row.Dir, "result.json"))
				require.NoError(t, err)
				require.NoError(t, json.Unmarshal(b, &res))
				assert.Equal(t, row.Strategy, res.Config.ClientStrategy)
				assert.True(t, strings.HasPrefix(row.Command, "fencecheck run --target "+target+" "), row.Command)
			}
			// The text table and the JSON come from runs of the same seed:
			// the same figures.
			assert.Contains(t, r.stdout, "fencing ")

			// A row's reproduce line repeats its run, byte for byte.
			renew := table.Rows[2]
			args := strings.Fields(strings.TrimPrefix(renew.Command, "fencecheck "))
			rr := fencecheck(t, dir, append(args, "--store", "again")...)
			require.Contains(t, []int{0, 1}, rr.code, rr.stderr)
			a, err := os.ReadFile(filepath.Join(dir, renew.Dir, "history.jsonl"))
			require.NoError(t, err)
			b, err := os.ReadFile(filepath.Join(dir, "again", "latest", "history.jsonl"))
			require.NoError(t, err)
			assert.Equal(t, a, b, "the renew row's reproduce line gives another history")
		})
	}
}

// TestCompareFixesIsDeterministic: with a memory target, the same seed
// prints the same table (the run directories aside).
func TestCompareFixesIsDeterministic(t *testing.T) {
	t.Parallel()
	dir := schema.TempDir(t)
	strip := regexp.MustCompile(`(?m)^  \S+ +store\S*$`)
	a := fencecheck(t, dir, "compare-fixes", "--target", "memory://unfenced", "--seed", "3", "--duration", "2s", "--store", "store")
	b := fencecheck(t, dir, "compare-fixes", "--target", "memory://unfenced", "--seed", "3", "--duration", "2s", "--store", "store")
	require.Equal(t, 0, a.code, a.stderr)
	require.Equal(t, 0, b.code, b.stderr)
	assert.Equal(t, strip.ReplaceAllString(a.stdout, ""), strip.ReplaceAllString(b.stdout, ""))
}

// TestCompareFixesErrors: what stops the comparison is an error, exit 3,
// naming what is wrong.
func TestCompareFixesErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no target", nil, "--target: required"},
		{"an unknown memory target", []string{"--target", "memory://nope"}, `unknown memory target "nope"`},
		{"it runs every strategy itself", []string{"--target", "memory://fenced", "--client-strategy", "none"}, "unknown flag: --client-strategy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := fencecheck(t, schema.TempDir(t), append([]string{"compare-fixes", "--store", "store"}, tc.args...)...)
			assert.Equal(t, 3, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			assert.Contains(t, r.stderr, tc.want)
		})
	}
}

// TestCompareFixesOnATargetThatCannotWriteWithoutAToken: a receiver
// given by its own statements has no write without a token, so the
// unfenced strategies cannot run against it. The comparison still runs
// fencing, marks every other row "not run" and says why, rather than
// refusing the whole table or printing zeros that read as a result.
func TestCompareFixesOnATargetThatCannotWriteWithoutAToken(t *testing.T) {
	t.Parallel()
	dir := schema.TempDir(t)
	r := fencecheck(t, dir, "compare-fixes", "--store", "store", "--duration", "2s",
		"--target", "sqlite://"+filepath.Join(dir, "x.db"),
		"--sql-setup", "CREATE TABLE own (resource TEXT PRIMARY KEY, token INTEGER, value TEXT)",
		"--sql-write", "INSERT INTO own VALUES (:resource, :token, :value) ON CONFLICT (resource) DO UPDATE SET token = excluded.token, value = excluded.value WHERE excluded.token > own.token",
		"--sql-read", "SELECT value, token FROM own WHERE resource = :resource")
	require.Contains(t, []int{exitHeld, exitInconclusive}, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	for _, s := range []string{"none", "longer-lease", "renew", "check-before-write"} {
		assert.Regexp(t, `(?m)^`+s+` +0 of 0 +not run`, r.stdout, "the %s row", s)
		assert.Regexp(t, `(?m)^  `+s+` +not run: `+s+` writes without a token, and sqlite://`, r.stdout, "why %s was not run", s)
	}
	assert.NotRegexp(t, `(?m)^fencing +\S+ of \S+ +not run`, r.stdout, "fencing needs no unfenced write: it runs")
}

// TestReplayPrintsTheStrategyTable: replay also plays the five steps with
// each client strategy, prints the table, and writes it and each
// strategy's trace, which check judges as the table says.
func TestReplayPrintsTheStrategyTable(t *testing.T) {
	t.Parallel()
	dir := schema.TempDir(t)
	r := fencecheck(t, dir, "replay")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "| Strategy | Receiver | A's old result (step 4) | Stale writes accepted | Verdict |")
	for _, s := range strategyOrder {
		for _, receiver := range []string{"unfenced", "fenced"} {
			want := "| " + s + " | " + receiver + " | accepted | 1 | violated |"
			code := 1
			if s == "fencing" && receiver == "fenced" {
				want, code = "| fencing | fenced | rejected | 0 | held |", 0
			}
			assert.Contains(t, r.stdout, want)
			c := fencecheck(t, dir, "check", "--policy", "accept-equal", "replay-out/strategies/strategy-"+s+"-"+receiver+".jsonl")
			assert.Equal(t, code, c.code, "%s against %s: %s%s", s, receiver, c.stdout, c.stderr)
		}
	}
	for _, f := range []string{"strategies.csv", "strategies.json"} {
		assert.FileExists(t, filepath.Join(dir, "replay-out", f))
	}
}
