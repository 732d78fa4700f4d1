package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
)

// unreachableTarget refuses connections: nothing listens on port 1.
const unreachableTarget = "http://127.0.0.1:1"

// TestFiftyConcurrentRunsShareAStore: 50 fencecheck processes run into
// one store at once under one run name, every fifth against a receiver
// that does not answer. Every run exits as it should, each finished run
// has its own complete directory, the ones that could not start leave
// nothing, latest names a run with a result, and no temporary link is
// left behind.
func TestFiftyConcurrentRunsShareAStore(t *testing.T) {
	t.Parallel()
	dir := schema.TempDir(t)
	const runs = 50
	type outcome struct {
		code           int
		stdout, stderr string
	}
	out := make([]outcome, runs)
	var wg sync.WaitGroup
	for i := range runs {
		target := "memory://fenced"
		if i%5 == 4 {
			target = unreachableTarget
		}
		wg.Go(func() {
			// 200 operations: enough that every resource gets a write
			// even when contention bursts gather workers on one.
			cmd := exec.Command(fencecheckBinary, "run", "--target", target, "--ops", "200", "--min-stale", "0", "--seed", fmt.Sprint(i+1),
				"--name", "shared", "--store", "s", "--json", "--no-progress")
			cmd.Dir = dir
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				out[i].code = ee.ExitCode()
			} else if err != nil {
				out[i].code = -1
			}
			out[i].stdout, out[i].stderr = stdout.String(), stderr.String()
		})
	}
	wg.Wait()

	finished := map[string]bool{}
	for i, o := range out {
		if i%5 == 4 {
			assert.Equal(t, exitError, o.code, "run %d: %s", i, o.stderr)
			assert.Contains(t, o.stderr, "does not answer", "run %d", i)
			continue
		}
		require.Equal(t, 0, o.code, "run %d: %s%s", i, o.stdout, o.stderr)
		var res struct {
			Dir    string `json:"dir"`
			Config struct {
				Seed int `json:"seed"`
			} `json:"config"`
		}
		require.NoError(t, json.Unmarshal([]byte(o.stdout), &res), "run %d", i)
		assert.Equal(t, i+1, res.Config.Seed)
		assert.False(t, finished[res.Dir], "runs %d and another share %s", i, res.Dir)
		finished[res.Dir] = true
		for _, f := range []string{"history.jsonl", "result.json", "summary.txt", "report.html", "timeline.html"} {
			assert.FileExists(t, filepath.Join(dir, res.Dir, f), "run %d", i)
		}
	}
	store := filepath.Join(dir, "s")
	dirs, err := filepath.Glob(filepath.Join(store, "shared", "*"))
	require.NoError(t, err)
	assert.Len(t, dirs, runs*4/5, "only the runs that started have a directory")
	for _, d := range dirs {
		rel, err := filepath.Rel(dir, d)
		require.NoError(t, err)
		assert.True(t, finished[rel], "%s is no finished run's", rel)
	}
	latest, err := os.Readlink(filepath.Join(store, "latest"))
	require.NoError(t, err)
	assert.True(t, finished[filepath.Join("s", latest)], "latest points at %s, not a finished run", latest)
	assert.FileExists(t, filepath.Join(store, "latest", "result.json"))
	entries, err := os.ReadDir(store)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.ElementsMatch(t, []string{"shared", "latest"}, names, "nothing else, no temporary link, is left in the store")
}

// TestRunThatCannotStartIsNotLatest: a run or a battery that fails at
// start-up (a receiver that does not answer, an --exec refused because
// another process has the port) exits 3, leaves no directory, and latest
// still names the last run with a result.
func TestRunThatCannotStartIsNotLatest(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0") // another server on the port
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	busy := ln.Addr().String()
	cases := []struct {
		name string
		args []string
	}{
		{"run, unreachable", []string{"run", "--target", unreachableTarget, "--ops", "20"}},
		{"verify, unreachable", []string{"verify", "--target", unreachableTarget}},
		{"run, --exec refused", []string{"run", "--target", "http://" + busy, "--exec", "exec sleep 30", "--ops", "20"}},
		{"verify, --exec refused", []string{"verify", "--target", "http://" + busy, "--exec", "exec sleep 30"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := schema.TempDir(t)
			first := fencecheck(t, dir, "run", "--target", "memory://fenced", "--ops", "200", "--min-stale", "0", "--seed", "1", "--store", "s")
			require.Equal(t, 0, first.code, first.stderr)
			before, err := os.Readlink(filepath.Join(dir, "s", "latest"))
			require.NoError(t, err)

			r := fencecheck(t, dir, append(tc.args, "--store", "s")...)
			assert.Equal(t, exitError, r.code, r.stdout+r.stderr)
			after, err := os.Readlink(filepath.Join(dir, "s", "latest"))
			require.NoError(t, err)
			assert.Equal(t, before, after, "latest still names the run with a result")
			entries, err := os.ReadDir(filepath.Join(dir, "s"))
			require.NoError(t, err)
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			assert.ElementsMatch(t, []string{"memory-fenced", "latest"}, names, "the run that could not start left nothing")
		})
	}
}
