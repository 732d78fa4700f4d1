package fencetest

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/harness"
	"github.com/fencecheck/fencecheck/internal/testsupport/gotool"
)

// TestReproduceLine: the line a failing test prints runs it again with
// its seed. The tests of testdata/reproduce fail on purpose; each is run
// with go test and -fencetest.seed=5 (their own seed is 1), and then
// with the line it printed, from the module's root, as a person would.
// Both runs have seed 5 and the same history, byte for byte: in the
// deterministic simulation and on a synctest bubble's clock.
func TestReproduceLine(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a test binary with go test")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to run a test with")
	}
	t.Parallel()
	line := regexp.MustCompile(`(?m)^\s*reproduce\s+(go test .*)$`)
	for _, test := range []string{"TestUnfencedMemory", "TestCheckThenSetHandler"} {
		t.Run(test, func(t *testing.T) {
			t.Parallel()
			// The go commands run with this test's own flags (-race under
			// go test -race), which the line does not name: they reuse
			// what this test's build compiled, and the line reproduces the
			// run either way.
			env, err := gotool.Env()
			require.NoError(t, err)
			goTest := func(store string, args ...string) string {
				cmd := exec.CommandContext(t.Context(), args[0], args[1:]...)
				cmd.Dir = ".." // the module's root, where the line is to be run
				cmd.Env = append(env, "FENCETEST_STORE="+store, "FENCETEST_LEASES=")
				out, err := cmd.CombinedOutput()
				var exit *exec.ExitError
				require.ErrorAs(t, err, &exit, "the test fails on purpose:\n%s", out)
				return string(out)
			}
			first := schema.TempDir(t)
			out := goTest(first, goBin, "test", "-count=1", "-run", "^"+test+"$", "./fencetest/testdata/reproduce", "-fencetest.seed=5")
			m := line.FindStringSubmatch(out)
			require.NotNil(t, m, "the failure prints the line that reproduces it:\n%s", out)
			assert.Equal(t, "go test -run '^"+test+"$' ./fencetest/testdata/reproduce -fencetest.seed=5", m[1])
			again := schema.TempDir(t)
			out = goTest(again, "sh", "-c", m[1])
			assert.Contains(t, out, m[1], "the reproduced failure prints the same line")

			a, b := runOf(t, first), runOf(t, again)
			assert.Equal(t, uint64(5), a.Config.Seed, "the flag replaced the test's seed")
			assert.Equal(t, uint64(5), b.Config.Seed)
			assert.Equal(t, a.Verdict, b.Verdict)
			assert.True(t, bytes.Equal(a.history, b.history), "the line repeats the history byte for byte")
		})
	}
}

// storedRun is a run in a store: its result and its history.
type storedRun struct {
	harness.Result
	history []byte
}

// runOf reads the one run in store.
func runOf(t *testing.T, store string) storedRun {
	t.Helper()
	results, err := filepath.Glob(filepath.Join(store, "*", "*", "result.json"))
	require.NoError(t, err)
	require.Len(t, results, 1, "one run in %s", store)
	var r storedRun
	b, err := os.ReadFile(results[0])
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &r.Result))
	r.history, err = os.ReadFile(filepath.Join(filepath.Dir(results[0]), "history.jsonl"))
	require.NoError(t, err)
	require.NotEmpty(t, r.history)
	return r
}
