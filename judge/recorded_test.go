package judge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/logscan"
	"github.com/fencecheck/fencecheck/model"
)

// The recorded judgements in testdata/recorded are regression fixtures:
// histories that runs and fencecheck check once judged, with what they
// printed (run.json, a run's result.json; check.json, check --json of
// the history). A user who re-checks a stored history relies on getting
// the judgement it got when it was recorded, so each must come out of
// Judge the same, field for field and byte for byte: the verdict, its
// reason, the worded violations, the minimal counterexample, the counts,
// the coverage and the evidence. Only what measures this machine's speed
// (elapsed_ns) and where the receiver's log lay are left out.
//
// A fixture changes only when a verdict rule changes on purpose; the
// commit that changes it says why.

// judgementKeys are the fields of a result.json and of check --json that
// a judgement makes; check --json named the checker's result "result"
// before the two shared one schema.
var judgementKeys = []string{"verdict", "reason", "check", "counts", "coverage", "evidence", "exclusive_violations", "receiver_log", "notes", "minimal"}

// TestRecordedJudgementsStand re-judges every recorded history as check
// and as the run that recorded it did, and compares.
func TestRecordedJudgementsStand(t *testing.T) {
	t.Parallel()
	dirs, err := filepath.Glob("testdata/recorded/*")
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(dirs), 10)
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			if want, err := os.ReadFile(filepath.Join(dir, "check.json")); err == nil {
				t.Run("check", func(t *testing.T) {
					h := readRecorded(t, dir)
					got, err := Judge(context.Background(), h, DefaultOptions())
					require.NoError(t, err)
					sameJudgement(t, want, got, map[string]string{"result": "check"})
				})
			}
			if want, err := os.ReadFile(filepath.Join(dir, "run.json")); err == nil {
				t.Run("run", func(t *testing.T) {
					h := readRecorded(t, dir)
					got, err := Judge(context.Background(), h, runOptions(t, dir, want))
					require.NoError(t, err)
					sameJudgement(t, want, got, nil)
				})
			}
		})
	}
}

// readRecorded reads a fixture's history, or its shards' histories
// joined, as fencecheck check reads several files.
func readRecorded(t *testing.T, dir string) *histories.History {
	t.Helper()
	if filepath.Base(dir) != "shards" {
		h, err := histories.Read(t.Context(), histories.Source{Path: filepath.Join(dir, "history.jsonl")})
		require.NoError(t, err)
		return h
	}
	var shards []histories.Source
	for _, shard := range []string{"shard-0", "shard-1"} {
		shards = append(shards, histories.Source{Path: filepath.Join(filepath.Dir(dir), shard, "history.jsonl")})
	}
	joined, err := histories.Read(t.Context(), shards...)
	require.NoError(t, err)
	return joined
}

// runOptions are the options the run that recorded a fixture judged
// with, from its result.json's config: the faults that make stale
// writes are pause, delay and hold (nemesis.StaleWriter), those on the
// issuer's servers issuer-kill and issuer-pause.
func runOptions(t *testing.T, dir string, result []byte) Options {
	t.Helper()
	var res struct {
		Config struct {
			Policy           string   `json:"policy"`
			MinStale         int      `json:"min_stale"`
			RequireExclusive bool     `json:"require_exclusive"`
			Faults           []string `json:"nemesis"`
		} `json:"config"`
		Interrupted    bool   `json:"interrupted"`
		StoppedBecause string `json:"stopped_because"`
	}
	require.NoError(t, json.Unmarshal(result, &res))
	o := DefaultOptions()
	var err error
	o.Check.Policy, err = model.ParsePolicy(res.Config.Policy)
	require.NoError(t, err)
	o.MinStale, o.RequireExclusive = res.Config.MinStale, res.Config.RequireExclusive
	for _, f := range res.Config.Faults {
		switch f {
		case "pause", "delay", "hold":
			o.StaleFaults = append(o.StaleFaults, f)
		case "issuer-kill", "issuer-pause":
			o.IssuerFaults = append(o.IssuerFaults, f)
		}
	}
	if res.Interrupted {
		o.Stopped = errors.New(res.StoppedBecause)
	}
	if log := filepath.Join(dir, "receiver.log"); fileExists(log) {
		o.ReceiverLog = logscan.NewOutcome(logscan.ScanFile(log, logscan.DefaultOptions()))
	}
	return o
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// sameJudgement compares the judgement fields of want, a recorded JSON
// file, with got's, after renaming the fields renamed names.
func sameJudgement(t *testing.T, want []byte, got Report, renamed map[string]string) {
	t.Helper()
	var old map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(want, &old))
	for from, to := range renamed {
		if v, ok := old[from]; ok {
			old[to] = v
			delete(old, from)
		}
	}
	data, err := json.Marshal(got)
	require.NoError(t, err)
	var now map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(data, &now))
	for _, key := range judgementKeys {
		w, inOld := old[key]
		g, inNew := now[key]
		if !inOld {
			continue // a field the recorded judgement did not have
		}
		require.True(t, inNew, "the judgement lost %q", key)
		var want, got any
		require.NoError(t, json.Unmarshal([]byte(normalized(t, w)), &want))
		require.NoError(t, json.Unmarshal([]byte(normalized(t, g)), &got))
		for _, d := range differences(key, want, got) {
			t.Error(d)
		}
	}
	for key := range old {
		if slices.Contains(judgementKeys, key) {
			continue
		}
		_, inNew := now[key]
		assert.False(t, inNew, "%q is not a judgement field, yet the Report has it", key)
	}
}

// differences lists where got differs from want: every field of want
// must be in got with the same value; a field got adds is new since the
// judgement was recorded, which a reader of the format skips.
func differences(path string, want, got any) []string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: recorded an object, now %v", path, got)}
		}
		var out []string
		for _, k := range slices.Sorted(maps.Keys(w)) {
			if _, ok := g[k]; !ok {
				out = append(out, fmt.Sprintf("%s.%s: recorded %v, now absent", path, k, w[k]))
				continue
			}
			out = append(out, differences(path+"."+k, w[k], g[k])...)
		}
		return out
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return []string{fmt.Sprintf("%s: recorded %v, now %v", path, want, got)}
		}
		var out []string
		for i := range w {
			out = append(out, differences(fmt.Sprintf("%s[%d]", path, i), w[i], g[i])...)
		}
		return out
	}
	if !reflect.DeepEqual(want, got) {
		return []string{fmt.Sprintf("%s: recorded %v, now %v", path, want, got)}
	}
	return nil
}

// normalized re-encodes raw with what measures the machine taken out:
// every elapsed_ns is 0, and the receiver log's path is its base name.
func normalized(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	require.NoError(t, dec.Decode(&v))
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				switch {
				case k == "elapsed_ns":
					v[k] = 0
				case k == "file":
					if s, ok := x.(string); ok {
						v[k] = filepath.Base(s)
					}
				default:
					walk(x)
				}
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(v)
	out, err := json.MarshalIndent(v, "", " ")
	require.NoError(t, err)
	return string(out)
}
