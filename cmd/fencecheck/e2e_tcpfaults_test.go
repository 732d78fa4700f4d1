package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/histories"
)

// TestTCPFaultsE2E runs the built binary with the TCP proxy's faults in
// front of real receivers: PostgreSQL and MariaDB in the built-in atomic
// mode, and the reference HTTP receiver. The faults act from the start
// (a script) and each on chunks, not on a timer: net-reset fires on the
// receiver's first answer byte to a chosen request. The verdict must
// still be HOLDS, with the reset writes recorded as unknown outcomes and
// the fault's actions in the history, report and timeline.
func TestTCPFaultsE2E(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		engine *sqlEngine
		redis  bool
		faults []string
	}{
		{name: "postgres", engine: &postgresEngine, faults: []string{"net-reset"}},
		{name: "mysql", engine: &sqlEngines[2], faults: []string{"net-reset", "net-latency"}},
		{name: "redis", redis: true, faults: []string{"net-reset", "net-latency"}},
		{name: "http", faults: []string{"net-reset", "net-latency", "net-hold", "net-blackhole"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := schema.TempDir(t)
			var target []string
			switch {
			case tc.engine != nil:
				target = []string{"--target", tc.engine.spec(t, dir), "--sql-mode", "atomic"}
			case tc.redis:
				target = []string{"--target", redisSpec(t), "--redis-mode", "atomic"}
			default:
				target = []string{"--target", startReceiver(t), "--request-timeout", "1s"}
			}
			script := []string{"0s:+pause", "0s:+delay"}
			for _, f := range tc.faults {
				script = append(script, "0s:+"+f)
			}
			args := append(target, "--workers", "8", "--ops", "600", "--op-timeout", "2s", "--lease-ttl", "30ms", "--seed", "1",
				"--nemesis", "pause,delay,"+strings.Join(tc.faults, ","), "--nemesis-script", strings.Join(script, ","),
				"--store", "s", "--json")
			r := fencecheck(t, dir, append([]string{"run"}, args...)...)
			require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			var res struct {
				Verdict  string `json:"verdict"`
				Target   string `json:"target"`
				Coverage struct {
					FaultActions map[string]int `json:"fault_actions"`
				} `json:"coverage"`
				Dir string `json:"dir"`
			}
			require.NoError(t, json.Unmarshal([]byte(r.stdout), &res), r.stdout)
			assert.Equal(t, "held", res.Verdict)
			assert.Positive(t, res.Coverage.FaultActions["net-reset"], "no reset happened")
			run := filepath.Join(dir, res.Dir)
			h, err := histories.Read(t.Context(), histories.Source{Path: filepath.Join(run, "history.jsonl")})
			require.NoError(t, err)

			unknown, readBack := unknownWrites(h)
			t.Logf("%s: verdict %s, fault actions %v, %d writes with an unknown outcome, %d of them read back later (they took effect); errors: %+v",
				tc.name, res.Verdict, res.Coverage.FaultActions, unknown, readBack, h.Errors)
			assert.Positive(t, unknown, "a reset write is an unknown outcome")
			resets := 0
			for _, e := range h.Others {
				if e.Actor == histories.ActorNemesis && e.Fault == "net-reset" && e.F == histories.FEnd &&
					strings.Contains(e.Detail, "dropped the answer and reset") {
					resets++
				}
			}
			assert.Positive(t, resets, "the history records the resets")
			for _, page := range []string{"report.html", "timeline.html"} {
				b, err := os.ReadFile(filepath.Join(run, page))
				if os.IsNotExist(err) {
					continue
				}
				require.NoError(t, err)
				assert.Contains(t, string(b), "net-reset", "%s shows the fault", page)
			}
		})
	}
}

// unknownWrites counts the writes with an unknown outcome, and those of
// them whose value a later read returned: writes the client could not
// know took effect, and did.
func unknownWrites(h *histories.History) (unknown, readBack int) {
	for _, w := range h.Expand(nil) {
		if w.F != histories.FWrite || w.Status != histories.StatusUnknown {
			continue
		}
		unknown++
		for _, r := range h.Expand(nil) {
			if r.F == histories.FRead && r.HasValue && r.Value == w.Value && r.Resource == w.Resource && r.Call > w.Call {
				readBack++
				break
			}
		}
	}
	return unknown, readBack
}
