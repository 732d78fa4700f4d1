package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
)

// reproduceOf returns the reproduce line a run printed.
func reproduceOf(t *testing.T, stdout string) string {
	t.Helper()
	for _, line := range strings.Split(stdout, "\n") {
		if rest, ok := strings.CutPrefix(line, "reproduce   "); ok {
			return rest
		}
	}
	t.Fatalf("no reproduce line in:\n%s", stdout)
	return ""
}

// shell runs a printed command line as a user pasting it would: through
// sh, with the built binary first on the PATH.
func shell(t *testing.T, dir, line string) result {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", line)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(fencecheckBinary)+string(os.PathListSeparator)+os.Getenv("PATH"))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	code := 0
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return result{out.String(), errb.String(), code}
}

// TestReproduceLineReproduces: the command run prints, pasted into a
// shell, repeats the run: the same verdict, and for a memory target the
// same history byte for byte. It carries every flag that shaped the run,
// quoted (a repeated --sql-setup with spaces in it, an --exec command
// line, a nemesis script), and the seed a run drew for itself.
func TestReproduceLineReproduces(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t)
	cases := []struct {
		name          string
		args          func(dir string) []string
		code          int
		deterministic bool
	}{
		{"memory, violated", func(string) []string {
			return []string{"--target", "memory://check-then-set", "--seed", "7"}
		}, 1, true},
		{"memory, a seed drawn by the run", func(string) []string {
			return []string{"--target", "memory://fenced", "--nemesis", "pause,delay,duplicate"}
		}, 0, true},
		{"memory, scripted faults", func(string) []string {
			return []string{"--target", "memory://fenced", "--nemesis", "pause,delay", "--nemesis-script", "500ms:+pause,2s:-pause,1s:+delay", "--seed", "3", "--policy", "accept-equal"}
		}, 0, true},
		{"memory, PCT", func(string) []string {
			return []string{"--target", "memory://check-then-set", "--schedule", "pct:3", "--seed", "5"}
		}, 1, true},
		{"sqlite, check-then-set", func(dir string) []string {
			return []string{"--target", "sqlite://" + filepath.Join(dir, "x.db"), "--sql-mode", "check-then-set", "--ops", "600", "--op-timeout", "2s", "--lease-ttl", "30ms", "--seed", "2"}
		}, 1, false},
		{"sqlite, own statements", func(dir string) []string {
			return append([]string{"--target", "sqlite://" + filepath.Join(dir, "own.db"), "--ops", "400", "--op-timeout", "2s", "--lease-ttl", "30ms", "--seed", "1"},
				ownStatements("results", "UPDATE %s SET value = :value, token = :token WHERE id = :resource AND token <= :token")...)
		}, 1, false},
		{"exec", func(string) []string {
			return []string{"--target", "http://" + addr, "--exec", fmt.Sprintf("%s receiver --listen %s", fencecheckBinary, addr),
				"--ops", "400", "--lease-ttl", "30ms", "--op-timeout", "2s", "--seed", "4"}
		}, 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := schema.TempDir(t)
			first := fencecheck(t, dir, append([]string{"run", "--store", "first"}, tc.args(dir)...)...)
			require.Equal(t, tc.code, first.code, first.stdout+first.stderr)
			line := reproduceOf(t, first.stdout)
			assert.True(t, strings.HasPrefix(line, "fencecheck run --target "), line)
			if tc.deterministic {
				order := "random"
				if slices.Contains(tc.args(dir), "pct:3") {
					order = "pct:3"
				}
				assert.Contains(t, line, " --schedule "+order+" ", "a deterministic run names its task order")
			} else {
				assert.NotContains(t, line, "--schedule", "only the simulation has a task order")
			}
			again := shell(t, dir, line+" --store again")
			require.Equal(t, tc.code, again.code, "the reproduce line %s\n%s%s", line, again.stdout, again.stderr)
			assert.Equal(t, line, reproduceOf(t, again.stdout), "the line reproduces itself")
			if tc.deterministic {
				a, err := os.ReadFile(filepath.Join(dir, "first", "latest", "history.jsonl"))
				require.NoError(t, err)
				b, err := os.ReadFile(filepath.Join(dir, "again", "latest", "history.jsonl"))
				require.NoError(t, err)
				assert.True(t, bytes.Equal(a, b), "the same history byte for byte")
			}
		})
	}
}
