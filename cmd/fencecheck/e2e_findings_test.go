package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
)

// findingLine matches a finding's line in a run's summary.
var findingLine = regexp.MustCompile(`(?m)^(?:finding     |            )([a-z-]+) \((\d+) resources?\): `)

// findingKinds are the kinds a summary names, in order, with how many
// resources show each.
func findingKinds(stdout string) ([]string, map[string]int) {
	var out []string
	counts := map[string]int{}
	for _, m := range findingLine.FindAllStringSubmatch(stdout, -1) {
		out = append(out, m[1])
		counts[m[1]], _ = strconv.Atoi(m[2])
	}
	return out, counts
}

// TestFindingsNameTheRootCauseFirst: a receiver broken at the root shows
// symptoms on every resource; the user needs the root cause named first,
// in the verdict and as the minimal counterexample. One that keeps a
// single store for all resources (memory://one-store) is a scope finding:
// a resource returned a value written to another. One that forgets its
// state when it restarts (the reference receiver's forget-on-restart,
// killed and started again by --nemesis kill) is a restart finding,
// before the stale reads and wrong answers it causes.
func TestFindingsNameTheRootCauseFirst(t *testing.T) {
	t.Parallel()
	t.Run("one store for all resources", func(t *testing.T) {
		t.Parallel()
		r := fencecheck(t, schema.TempDir(t), "run", "--target", "memory://one-store", "--seed", "3", "--store", "s")
		require.Equal(t, exitViolated, r.code, r.stdout+r.stderr)
		kinds, _ := findingKinds(r.stdout)
		require.NotEmpty(t, kinds, r.stdout)
		assert.Equal(t, "scope", kinds[0], r.stdout)
		assert.Contains(t, r.stdout, "verdict     VIOLATED: the receiver does not keep resources apart: ")
		assert.Regexp(t, `returned a value written to \S+-r\d`, r.stdout)
		assert.Contains(t, r.stdout, "a value no write of the resource wrote")
	})
	t.Run("forgets its state on restart", func(t *testing.T) {
		t.Parallel()
		addr := freeAddr(t)
		r := fencecheck(t, schema.TempDir(t), "run", "--target", "http://"+addr, "--exec", fencecheckBinary+" receiver --bug forget-on-restart --listen "+addr,
			"--nemesis", "pause,delay,kill", "--ops", "400", "--seed", "2", "--store", "s")
		if r.code == exitInconclusive {
			t.Skipf("the run never crashed the receiver after an acknowledged write (a starved machine):\n%s", r.stdout)
		}
		require.Equal(t, exitViolated, r.code, r.stdout+r.stderr)
		kinds, _ := findingKinds(r.stdout)
		require.NotEmpty(t, kinds, r.stdout)
		assert.Equal(t, "restart", kinds[0], r.stdout)
		assert.Contains(t, r.stdout, "verdict     VIOLATED: the receiver forgot its state across a restart: ")
	})
}

// TestManyViolatedResourcesFitOnAScreen: with every one of 64 resources
// violated, the summary still fits on a screen: each kind of finding
// named once, its first example in full and the other resources named,
// not 64 tables.
func TestManyViolatedResourcesFitOnAScreen(t *testing.T) {
	t.Parallel()
	r := fencecheck(t, schema.TempDir(t), "run", "--target", "memory://check-then-set", "--resources", "64", "--workers", "128",
		"--duration", "8s", "--seed", "1", "--store", "s", "--no-report")
	require.Equal(t, exitViolated, r.code, r.stdout+r.stderr)
	require.Contains(t, r.stdout, "on 64 of 64 resources", "every resource violated")
	lines := strings.Count(r.stdout, "\n")
	assert.LessOrEqual(t, lines, 60, r.stdout)
	kinds, counts := findingKinds(r.stdout)
	assert.GreaterOrEqual(t, len(kinds), 2, r.stdout)
	for _, k := range kinds {
		if counts[k] > 1 {
			assert.Contains(t, r.stdout, fmt.Sprintf("and %d more resources like it (%s)", counts[k]-1, k), "kind %s: the others named, not told again", k)
		}
	}
	t.Logf("%d lines, kinds %v", lines, kinds)
}
