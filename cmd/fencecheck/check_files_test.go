package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/internal/testsupport/histgen"
)

// checkIn runs fencecheck check in this process.
func checkIn(t *testing.T, args ...string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	args = append([]string{"check"}, args...)
	code := run(context.Background(), args, &stdout, &stderr)
	r := result{stdout.String(), stderr.String(), code}
	validateJSON(t, args, r)
	return r
}

// shardFile writes a history of resource by processes 0 and 1 (a newer
// write accepted, then an older one, accepted when stale, then a read) and
// returns its path.
func shardFile(t *testing.T, dir, name, resource string, stale histories.Outcome) string {
	t.Helper()
	w := func(p int, tok uint64, v string) histories.Event {
		return histories.Event{Process: p, Type: histories.TypeInvoke, F: histories.FWrite, Resource: resource, Token: tok, HasToken: true, Value: v, HasValue: true}
	}
	ok := func(p int, o histories.Outcome) histories.Event {
		return histories.Event{Process: p, Type: histories.TypeOK, F: histories.FWrite, Resource: resource, Outcome: o}
	}
	last := resource + "-new"
	if stale == histories.Accepted {
		last = resource + "-old"
	}
	events := []histories.Event{
		{Process: -1, Actor: histories.ActorLease, F: histories.FAcquire, Resource: resource, Token: 2, HasToken: true, Holder: 0, HasHolder: true},
		w(0, 2, resource+"-new"), ok(0, histories.Accepted),
		w(1, 1, resource+"-old"), ok(1, stale),
		{Process: 0, Type: histories.TypeInvoke, F: histories.FRead, Resource: resource},
		{Process: 0, Type: histories.TypeOK, F: histories.FRead, Resource: resource, Value: last, HasValue: true},
	}
	for i := range events {
		events[i].Index, events[i].Time = histories.FirstIndex+int64(i), int64(100*(i+1))
	}
	path := filepath.Join(dir, name)
	require.NoError(t, writeEvents(path, events))
	return path
}

// TestCheckSeveralHistories: check judges several files as one, each
// file's processes its own, and refuses a resource in two files, a file
// given twice and a malformed file, naming them.
func TestCheckSeveralHistories(t *testing.T) {
	t.Parallel()
	dir := t.TempDir() // not validated: holds a malformed history on purpose
	a := shardFile(t, dir, "a.jsonl", "r0", histories.Rejected)
	b := shardFile(t, dir, "b.jsonl", "r1", histories.Rejected)
	bad := shardFile(t, dir, "bad.jsonl", "r2", histories.Accepted)
	again := shardFile(t, dir, "again.jsonl", "r0", histories.Rejected)
	malformed := filepath.Join(dir, "malformed.jsonl")
	require.NoError(t, os.WriteFile(malformed, []byte(`{"index":0,"time":1,"process":0,"type":"invoke","f":"write","resource":"r3","token":"x","value":"v"}`+"\n"), 0o644))

	cases := []struct {
		name           string
		args           []string
		code           int
		stdout, stderr []string
	}{
		{"two files hold", []string{a, b}, exitHeld, []string{
			"histories      2 files, checked as one",
			"               " + a + "\n",
			"               " + b + " (index +8, time +701ns, process +2)\n",
			"operations     6: 4 writes (2 accepted, 2 rejected",
			"resources      2, processes 4\n", // each file's processes 0 and 1, apart
			"verdict        HELD",
		}, nil},
		{"a violation in one of them", []string{a, bad, b}, exitViolated, []string{
			"histories      3 files", `resource "r2": stale write accepted`, "VIOLATED",
		}, nil},
		{"a resource in two files", []string{a, b, again}, exitError, nil, []string{
			fmt.Sprintf(`resource "r0" is in %s and in %s: each history has its own clock`, a, again),
		}},
		{"a file given twice", []string{a, b, a}, exitError, nil, []string{a + " is given twice"}},
		{"a malformed file", []string{a, malformed}, exitError, nil, []string{"malformed.jsonl:1: field \"token\": not an unsigned integer"}},
		{"a missing file", []string{a, filepath.Join(dir, "nope.jsonl")}, exitError, nil, []string{"open history " + filepath.Join(dir, "nope.jsonl")}},
		{"no file", nil, exitError, nil, []string{"want one HISTORY file or more, got 0 arguments"}},
		{"a bad flag", []string{a, b, "--policy", "lenient"}, exitError, nil, []string{"--policy"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := checkIn(t, tc.args...)
			assert.Equal(t, tc.code, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			for _, want := range tc.stdout {
				assert.Contains(t, r.stdout, want)
			}
			for _, want := range tc.stderr {
				assert.Contains(t, r.stderr, want)
			}
		})
	}

	t.Run("one file is one history", func(t *testing.T) {
		t.Parallel()
		r := checkIn(t, a)
		require.Equal(t, exitHeld, r.code, r.stderr)
		assert.True(t, strings.HasPrefix(r.stdout, "history        "+a+"\noperations     3: "), r.stdout)
		assert.NotContains(t, r.stdout, "histories")
		j := checkIn(t, "--json", a)
		var got map[string]any
		require.NoError(t, json.Unmarshal([]byte(j.stdout), &got))
		assert.Equal(t, a, got["history"])
		assert.NotContains(t, got, "histories")
	})

	t.Run("json", func(t *testing.T) {
		t.Parallel()
		r := checkIn(t, "--json", a, b)
		require.Equal(t, exitHeld, r.code, r.stderr)
		var got map[string]any
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &got))
		assert.NotContains(t, got, "history", "several files are histories")
		assert.Equal(t, []any{
			map[string]any{"name": a, "index_offset": 0.0, "time_offset_ns": 0.0, "process_offset": 0.0, "processes": 2.0},
			map[string]any{"name": b, "index_offset": 8.0, "time_offset_ns": 701.0, "process_offset": 2.0, "processes": 2.0},
		}, got["histories"])
	})
}

// TestCheckedTogetherIsCheckedAsOne: a generated history, valid or
// corrupted, split by resource into several files as shards would record
// it, gets from check the verdict, the violated resources and the counts
// that the one file holding the same operations gets.
func TestCheckedTogetherIsCheckedAsOne(t *testing.T) {
	t.Parallel()
	dir := schema.TempDir(t)
	verdicts := make(map[string]int)
	for seed := range uint64(120) {
		r := rand.New(rand.NewPCG(seed, 20))
		cfg := histgen.Small(r)
		cfg.Resources, cfg.Ops, cfg.Clients = 2+r.IntN(5), 10+r.IntN(60), 2+r.IntN(4)
		ops := histgen.Generate(r, cfg)
		if seed%3 == 1 {
			histgen.Corrupt(r, ops, 1+r.IntN(2))
		}
		events := histgen.Events(ops)
		whole := filepath.Join(dir, fmt.Sprintf("%d.jsonl", seed))
		require.NoError(t, writeEvents(whole, events))
		split, _ := histgen.SplitByResource(events, 2+r.IntN(3))
		var paths []string
		for i, evs := range split {
			p := filepath.Join(dir, fmt.Sprintf("%d-shard%d.jsonl", seed, i))
			require.NoError(t, writeEvents(p, evs))
			paths = append(paths, p)
		}
		one := checkJSON(t, whole)
		if one.code == exitError {
			continue // the corruption made a history no file may hold (a process used after its unknown outcome)
		}
		together := checkJSON(t, paths...)
		verdicts[one.Verdict]++
		assert.Equal(t, one.code, together.code, "seed %d", seed)
		assert.Equal(t, one.Verdict, together.Verdict, "seed %d", seed)
		assert.Equal(t, one.violated(), together.violated(), "seed %d", seed)
		one.Counts.Processes, together.Counts.Processes = 0, 0 // a process split across files is one per file
		assert.Equal(t, one.Counts, together.Counts, "seed %d", seed)
	}
	t.Logf("verdicts: %v", verdicts)
	assert.GreaterOrEqual(t, verdicts["held"], 10)
	assert.GreaterOrEqual(t, verdicts["violated"], 10)
}

// checked is what check --json says, and its exit code.
type checked struct {
	code    int
	Verdict string           `json:"verdict"`
	Counts  histories.Counts `json:"counts"`
	Check   struct {
		Violations []struct {
			Resource string `json:"resource"`
		} `json:"violations"`
	} `json:"check"`
}

func (c checked) violated() []string {
	var out []string
	for _, v := range c.Check.Violations {
		out = append(out, v.Resource)
	}
	slices.Sort(out)
	return out
}

func checkJSON(t *testing.T, paths ...string) checked {
	t.Helper()
	r := checkIn(t, append([]string{"--json", "--shrink-timeout", "0"}, paths...)...)
	if r.code == exitError {
		return checked{code: r.code}
	}
	var c checked
	require.NoError(t, json.Unmarshal([]byte(strings.TrimSpace(r.stdout)), &c), r.stdout)
	c.code = r.code
	return c
}
