package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
)

// sweepLine is one line of a sweep's log, as a user reads it.
type sweepLine struct {
	Seed    uint64 `json:"seed"`
	Verdict string `json:"verdict"`
	Dir     string `json:"dir"`
	Counts  struct {
		Operations int `json:"operations"`
	} `json:"counts"`
	Coverage struct {
		StaleWrites int `json:"stale_writes"`
	} `json:"coverage"`
	Swarm *struct {
		Nemesis []string `json:"nemesis"`
		Workers int      `json:"workers"`
	} `json:"swarm"`
}

// sweepLog reads the sweep's log that its summary names.
func sweepLog(t *testing.T, dir, stdout string) []sweepLine {
	t.Helper()
	m := regexp.MustCompile(`(?m)^log +(\S+)$`).FindStringSubmatch(stdout)
	require.NotNil(t, m, "the summary names the sweep's log:\n%s", stdout)
	f, err := os.Open(filepath.Join(dir, m[1]))
	require.NoError(t, err)
	defer f.Close()
	var lines []sweepLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var l sweepLine
		require.NoError(t, json.Unmarshal(sc.Bytes(), &l), sc.Text())
		lines = append(lines, l)
	}
	require.NoError(t, sc.Err())
	return lines
}

// failingRun returns the failing seed and the directory of its stored
// run, as the sweep's summary prints them.
func failingRun(t *testing.T, stdout string) (string, string) {
	t.Helper()
	seed := regexp.MustCompile(`(?m)^failing seed (\d+)$`).FindStringSubmatch(stdout)
	require.NotNil(t, seed, "the summary names the failing seed:\n%s", stdout)
	after := stdout[strings.Index(stdout, seed[0]):]
	run := regexp.MustCompile(`(?m)^run +(\S+)$`).FindStringSubmatch(after)
	require.NotNil(t, run, "the failing seed's stored run:\n%s", stdout)
	return seed[1], run[1]
}

// repeatsByteForByte runs a sweep's run line, pasted into a shell, and
// asserts that it violates again with the history of the sweep's stored
// run, byte for byte.
func repeatsByteForByte(t *testing.T, dir, line, run string) {
	t.Helper()
	again := shell(t, dir, line+" --store again")
	require.Equal(t, exitViolated, again.code, again.stdout+again.stderr)
	want, err := os.ReadFile(filepath.Join(dir, run, "history.jsonl"))
	require.NoError(t, err)
	got, err := os.ReadFile(filepath.Join(dir, "again", "latest", "history.jsonl"))
	require.NoError(t, err)
	assert.Equal(t, want, got, "the run line repeats the sweep's run byte for byte")
}

// TestSweepStopsAtTheFirstFailingSeed: a sweep of the check-then-set
// receiver over ten thousand seeds stops at the first that violates,
// stores only the runs that violated, logs every seed it ran, and prints
// a fencecheck run line that, pasted into a shell, repeats the failing
// seed's run: the same history, byte for byte.
func TestSweepStopsAtTheFirstFailingSeed(t *testing.T) {
	t.Parallel()
	dir := schema.TempDir(t)
	began := time.Now()
	r := fencecheck(t, dir, "sweep", "--target", "memory://check-then-set", "--seeds", "1-10000", "--store", "s")
	t.Logf("wall time %s\n%s", time.Since(began), r.stdout)
	require.Equal(t, exitViolated, r.code, r.stdout+r.stderr)
	seed, run := failingRun(t, r.stdout)
	line := reproduceOf(t, r.stdout[strings.Index(r.stdout, "failing seed"):])
	assert.True(t, strings.HasPrefix(line, "fencecheck run --target memory://check-then-set "), line)
	assert.Contains(t, line, " --seed "+seed+" ")
	assert.NotContains(t, line, "--seeds")
	assert.Contains(t, r.stdout, "stopped     at the first violation")
	assert.Contains(t, r.stdout, "minimal counterexample")

	log := sweepLog(t, dir, r.stdout)
	assert.Less(t, len(log), 100, "it stopped long before the last seed")
	violated := 0
	for _, l := range log {
		if l.Verdict == "violated" {
			violated++
			assert.NotEmpty(t, l.Dir)
		} else {
			assert.Empty(t, l.Dir, "seed %d held and is not stored", l.Seed)
		}
		assert.Positive(t, l.Counts.Operations)
	}
	stored, err := filepath.Glob(filepath.Join(dir, "s", "memory-check-then-set", "*"))
	require.NoError(t, err)
	assert.Len(t, stored, violated, "only the runs that violated are stored")

	repeatsByteForByte(t, dir, line, run)
}

// TestSweepOfTheFencedReceiver: no seed of the correct receiver
// violates, nothing is stored but the sweep's own files, every seed is a
// line of its log, and the sweep holds (exit 0) on the stale writes its
// runs exercised together.
func TestSweepOfTheFencedReceiver(t *testing.T) {
	t.Parallel()
	dir := schema.TempDir(t)
	r := fencecheck(t, dir, "sweep", "--target", "memory://fenced", "--seeds", "1-200", "--store", "s")
	t.Log(r.stdout)
	require.Equal(t, exitHeld, r.code, r.stdout+r.stderr)
	assert.Regexp(t, `runs +200 in .*: \d+ held, 0 violated, \d+ inconclusive`, r.stdout)
	assert.Contains(t, r.stdout, "verdict     HELD: no violation in 200 runs")
	log := sweepLog(t, dir, r.stdout)
	require.Len(t, log, 200)
	stale := 0
	for _, l := range log {
		stale += l.Coverage.StaleWrites
	}
	assert.Positive(t, stale)
	entries, err := os.ReadDir(filepath.Join(dir, "s"))
	require.NoError(t, err)
	require.Len(t, entries, 1, "only the sweep's folder")
	assert.Equal(t, "memory-fenced-sweep", entries[0].Name())
}

// TestSweepSwarmReproduces: in a swarm each seed draws its own
// configuration, which the sweep prints with the failing seed and puts
// into its run line as explicit flags: the line repeats the run byte for
// byte without --swarm. Two sweeps draw the same configurations for the
// same seeds, and the draws differ between seeds.
func TestSweepSwarmReproduces(t *testing.T) {
	t.Parallel()
	dir := schema.TempDir(t)
	r := fencecheck(t, dir, "sweep", "--target", "memory://check-then-set", "--seeds", "1-1000", "--swarm", "--store", "s")
	t.Log(r.stdout)
	require.Equal(t, exitViolated, r.code, r.stdout+r.stderr)
	failing := r.stdout[strings.Index(r.stdout, "failing seed"):]
	assert.Regexp(t, `(?m)^swarm +nemesis \S+; \d+ workers, \d+ resources, lease TTL \S+, think \S+, read share \S+, tokens (dense|sparse)$`, failing)
	_, run := failingRun(t, r.stdout)
	line := reproduceOf(t, failing)
	for _, flag := range []string{"--nemesis", "--workers", "--resources", "--lease-ttl", "--think", "--read-share", "--tokens", "--seed"} {
		assert.Contains(t, line, " "+flag+" ")
	}
	assert.NotContains(t, line, "--swarm")
	repeatsByteForByte(t, dir, line, run)

	draws := func(store string) map[uint64]string {
		r := fencecheck(t, dir, "sweep", "--target", "memory://fenced", "--seeds", "1-12", "--swarm", "--keep-going", "--store", store)
		require.NotEqual(t, exitError, r.code, r.stderr)
		out := map[uint64]string{}
		for _, l := range sweepLog(t, dir, r.stdout) {
			require.NotNil(t, l.Swarm)
			out[l.Seed] = fmt.Sprint(*l.Swarm)
		}
		return out
	}
	a, b := draws("a"), draws("b")
	assert.Equal(t, a, b, "the same seeds draw the same configurations")
	distinct := map[string]bool{}
	for _, d := range a {
		distinct[d] = true
	}
	assert.Greater(t, len(distinct), 6, "the draws differ between seeds: %v", a)
}

// TestSweepOfAReceiverProcess: a sweep of short real-time runs against
// the reference HTTP receiver that fencecheck starts for each run finds
// its check-then-set bug and names the seed; against the correct
// receiver no seed violates.
func TestSweepOfAReceiverProcess(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		bug  string
		code int
	}{
		{"check-then-set", " --bug check-then-set --window 1ms", exitViolated},
		{"correct", "", exitHeld},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir, addr := schema.TempDir(t), freeAddr(t)
			recv := fmt.Sprintf("%s receiver --listen %s%s", fencecheckBinary, addr, tc.bug)
			r := fencecheck(t, dir, "sweep", "--target", "http://"+addr, "--exec", recv, "--ready", "tcp", "--seeds", "1-20",
				"--ops", "200", "--op-timeout", "2s", "--store", "s")
			t.Log(r.stdout)
			require.Equal(t, tc.code, r.code, r.stdout+r.stderr)
			assert.Contains(t, r.stdout, "(real time), seeds 1-20, 1 at a time")
			if tc.code == exitViolated {
				seed, _ := failingRun(t, r.stdout)
				assert.Contains(t, r.stdout, "verdict     VIOLATED: seed "+seed+": ")
				line := reproduceOf(t, r.stdout[strings.Index(r.stdout, "failing seed"):])
				assert.Contains(t, line, "--exec ")
				assert.Contains(t, line, " --seed "+seed)
				return
			}
			assert.Contains(t, r.stdout, "runs        20 in ")
			assert.Contains(t, r.stdout, " 0 violated")
		})
	}
}

// TestSweepFlags: sweep refuses what cannot work, naming the flag.
func TestSweepFlags(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t)
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"bad seeds", []string{"--target", "memory://fenced", "--seeds", "9-3"}, "--seeds: \"9-3\": want A-B"},
		{"no parallelism", []string{"--target", "memory://fenced", "--parallel", "0"}, "--parallel: 0"},
		{"a receiver process at once", []string{"--target", "http://" + addr, "--exec", "true", "--parallel", "2"}, "--exec"},
		{"a swarm with a script", []string{"--target", "memory://fenced", "--swarm", "--nemesis-script", "0s:+pause"}, "--swarm: a --nemesis-script"},
		{"a swarm of no fault", []string{"--target", "memory://fenced", "--swarm", "--nemesis", "none"}, "no fault to draw from"},
		{"a single seed is run's", []string{"--target", "memory://fenced", "--seed", "3"}, "unknown flag: --seed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := fencecheck(t, schema.TempDir(t), append([]string{"sweep"}, tc.args...)...)
			assert.Equal(t, exitError, r.code, r.stdout+r.stderr)
			assert.Contains(t, r.stderr, tc.want)
		})
	}
}
