package harness

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/lease"
	"github.com/fencecheck/fencecheck/model"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/runstore"
	"github.com/fencecheck/fencecheck/sched"
	"github.com/fencecheck/fencecheck/targets/memory"
	"github.com/fencecheck/fencecheck/workload"
)

// configLeaves are the paths of Config's settings, "Workload.Workers",
// walked by reflection: every exported field of every group.
func configLeaves() []string {
	var out []string
	t := reflect.TypeFor[Config]()
	for i := range t.NumField() {
		g := t.Field(i)
		if !g.IsExported() {
			continue
		}
		for j := range g.Type.NumField() {
			if f := g.Type.Field(j); f.IsExported() {
				out = append(out, g.Name+"."+f.Name)
			}
		}
	}
	return out
}

// notRecorded are the settings a run does not write into result.json,
// each with why, and where a user sees it reach the run instead.
var notRecorded = map[string]string{
	"Target.Receiver": "the receiver itself; Target.Name names it in result.json",
	"Leases.Service":  "a lease service the caller built and owns; its grants are the history's lease events",
	"Output.Terms":    "how advice is worded; the summary and the report show it (TestRunTermsAreFlags)",
	"Output.Progress": "a callback while the run lasts; a deterministic run may end before its first tick",
}

// TestEveryConfigFieldReachesTheRun: a user who sets a field of Config
// relies on the run doing it, and on result.json recording it so that
// the run can be told apart and repeated. Every setting of Config,
// walked by reflection, is set to a value other than its default on a
// short run, and found in the run's result (most in result.json's
// config), or is listed in notRecorded with why; a field added to
// Config without either fails this test.
func TestEveryConfigFieldReachesTheRun(t *testing.T) {
	t.Parallel()
	type row struct {
		set   func(*Config)
		check func(t *testing.T, res Result, config map[string]any)
	}
	has := func(key string, want any) func(*testing.T, Result, map[string]any) {
		return func(t *testing.T, _ Result, config map[string]any) {
			data, _ := json.Marshal(want)
			var w any
			require.NoError(t, json.Unmarshal(data, &w))
			assert.Equal(t, w, config[key], "result.json config.%s", key)
		}
	}
	var observed atomic.Int64
	started := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	rows := map[string]row{
		"Target.Name":            {func(c *Config) { c.Target.Name = "memory://renamed" }, has("target", "memory://renamed")},
		"Target.MaxToken":        {func(c *Config) { c.Target.MaxToken = 1 << 40 }, has("max_token", 1<<40)},
		"Workload.Workers":       {func(c *Config) { c.Workload.Workers = 3 }, has("workers", 3)},
		"Workload.Resources":     {func(c *Config) { c.Workload.Resources = 2 }, has("resources", 2)},
		"Workload.ResourceNames": {func(c *Config) { c.Workload.ResourceNames = []string{"a", "b", "c", "d"} }, has("resource_names", []string{"a", "b", "c", "d"})},
		"Workload.Shard": {func(c *Config) {
			c.Workload.ResourceNames, c.Workload.Shard = []string{"j-r0", "j-r1", "j-r2", "j-r3"}, &Shard{Index: 1, Count: 2}
		}, has("shard", "1/2")},
		"Workload.Duration":  {func(c *Config) { c.Workload.Duration = 2 * time.Second }, has("duration", "2s")},
		"Workload.Ops":       {func(c *Config) { c.Workload.Ops = 50 }, has("ops", 50)},
		"Workload.Rate":      {func(c *Config) { c.Workload.Rate = 1000 }, has("rate", 1000)},
		"Workload.ReadShare": {func(c *Config) { c.Workload.ReadShare = 0.5 }, has("read_share", 0.5)},
		"Workload.Burst": {func(c *Config) { c.Workload.Burst.Share, c.Workload.Burst.Size = 0.3, 3 }, func(t *testing.T, _ Result, config map[string]any) {
			assert.Equal(t, 0.3, config["burst_share"], "result.json config.burst_share")
			assert.Equal(t, 3.0, config["burst_size"], "result.json config.burst_size")
		}},
		"Workload.RepeatShare": {func(c *Config) { c.Workload.RepeatShare = 0.5 }, has("repeat_share", 0.5)},
		"Workload.Think":       {func(c *Config) { c.Workload.Think = 7 * time.Millisecond }, has("think", "7ms")},
		"Workload.OpTimeout":   {func(c *Config) { c.Workload.OpTimeout = time.Second }, has("op_timeout", "1s")},
		"Workload.Strategy":    {func(c *Config) { c.Workload.Strategy = workload.Renew }, has("client_strategy", "renew")},
		"Workload.LeaseMultiplier": {func(c *Config) { c.Workload.Strategy, c.Workload.LeaseMultiplier = workload.LongerLease, 2 },
			has("lease_multiplier", 2)},
		"Workload.RenewEvery": {func(c *Config) { c.Workload.Strategy, c.Workload.RenewEvery = workload.Renew, 20*time.Millisecond },
			has("renew_every", "20ms")},
		"Workload.ClockSkew": {func(c *Config) { c.Workload.Strategy, c.Workload.ClockSkew = workload.Renew, 200*time.Millisecond },
			has("clock_skew", "200ms")},
		"Leases.TTL": {func(c *Config) { c.Leases.TTL = 50 * time.Millisecond }, has("lease_ttl", "50ms")},
		"Leases.Issuer": {func(c *Config) { c.Runtime.Deterministic, c.Leases.Issuer = false, &localIssuer{} },
			has("leases", "local-issuer")},
		"Leases.Tokens":  {func(c *Config) { c.Leases.Tokens = lease.From(1000) }, has("tokens", "from:1000")},
		"Nemesis.Faults": {func(c *Config) { c.Nemesis.Faults = mustFaults(t, "expire") }, has("nemesis", []string{"expire"})},
		"Nemesis.Schedule": {func(c *Config) {
			c.Nemesis.Faults, c.Nemesis.Schedule = mustFaults(t, "pause"), nemesis.Script{Steps: []nemesis.Step{{Fault: "pause", On: true}}}
		}, has("schedule", "0s:+pause")},
		"Runtime.Seed":          {func(c *Config) { c.Runtime.Seed = 99 }, has("seed", 99)},
		"Runtime.Deterministic": {func(c *Config) { c.Runtime.Deterministic = false }, has("deterministic", false)},
		"Runtime.TaskOrder":     {func(c *Config) { c.Runtime.TaskOrder = sched.PCT(2) }, has("task_order", "pct:2")},
		"Runtime.VirtualClock":  {func(c *Config) { c.Runtime.Deterministic, c.Runtime.VirtualClock = false, true }, has("virtual_clock", true)},
		"Runtime.Latency":       {func(c *Config) { c.Runtime.Latency = time.Millisecond }, has("latency", "1ms")},
		"Runtime.Started": {func(c *Config) { c.Runtime.Started = started }, func(t *testing.T, res Result, _ map[string]any) {
			assert.Equal(t, started, res.Started)
		}},
		"Gates.Policy":           {func(c *Config) { c.Gates.Policy = model.AcceptEqual }, has("policy", "accept-equal")},
		"Gates.RequireExclusive": {func(c *Config) { c.Gates.RequireExclusive = true }, has("require_exclusive", true)},
		"Gates.MinStale":         {func(c *Config) { c.Gates.MinStale = 5 }, has("min_stale", 5)},
		"Gates.StopOnViolation":  {func(c *Config) { c.Gates.StopOnViolation = true }, has("stop_on_violation", true)},
		"Gates.CheckTimeout":     {func(c *Config) { c.Gates.CheckTimeout = 30 * time.Second }, has("check_timeout", "30s")},
		"Gates.ShrinkTimeout":    {func(c *Config) { c.Gates.ShrinkTimeout = 0 }, has("shrink_timeout", "0s")},
		"Store.Dir": {func(c *Config) { c.Store.Dir = filepath.Join(c.Store.Dir, "elsewhere") }, func(t *testing.T, res Result, _ map[string]any) {
			assert.Contains(t, res.Dir, string(filepath.Separator)+"elsewhere"+string(filepath.Separator))
		}},
		"Store.RunName": {func(c *Config) { c.Store.RunName = "named-run" }, func(t *testing.T, res Result, _ map[string]any) {
			assert.Equal(t, "named-run", filepath.Base(filepath.Dir(res.Dir)))
		}},
		"Store.Keep": {func(c *Config) { c.Store.Keep = KeepViolations }, func(t *testing.T, res Result, _ map[string]any) {
			assert.Empty(t, res.Dir, "a run that found no violation is not kept")
		}},
		"Store.NoReport": {func(c *Config) { c.Store.NoReport = true }, has("no_report", true)},
		"Output.Command": {func(c *Config) { c.Output.Command = "repeat me" }, has("command", "repeat me")},
		"Output.Version": {func(c *Config) { c.Output.Version = "v9.9.9" }, has("version", "v9.9.9")},
		"Output.Calibration": {func(c *Config) {
			c.Output.Calibration = &judge.Calibration{Twins: []judge.Twin{judge.Measured("check-then-set", "planted", 4, 4)}}
		}, func(t *testing.T, res Result, _ map[string]any) {
			require.NotNil(t, res.Calibration)
			assert.Equal(t, 4, res.Calibration.Twins[0].Caught)
			assert.Contains(t, res.Summary(), "calibrated  a receiver broken like check-then-set")
		}},
		"Output.Observer": {func(c *Config) { c.Output.Observer = countEvents{&observed} }, func(t *testing.T, _ Result, _ map[string]any) {
			assert.Positive(t, observed.Load(), "the observer saw the run's events")
		}},
	}
	leaves := configLeaves()
	for _, leaf := range leaves {
		_, tested := rows[leaf]
		_, why := notRecorded[leaf]
		assert.True(t, tested != why, "Config.%s must be either set and found in a run's result here, or in notRecorded with why", leaf)
	}
	for path := range rows {
		assert.True(t, slices.Contains(leaves, path), "%s is not a Config field", path)
	}
	for path, r := range rows {
		t.Run(path, func(t *testing.T) {
			t.Parallel()
			res, err := Run(context.Background(), testConfig(t, memory.NewFenced(), "memory://fenced", func(c *Config) {
				c.Workload.Ops, c.Workload.Duration = 200, 0
				r.set(c)
			}))
			require.NoError(t, err)
			config := map[string]any{}
			if res.Dir != "" {
				data, err := os.ReadFile(filepath.Join(res.Dir, runstore.Result))
				require.NoError(t, err)
				var raw struct {
					Config map[string]any `json:"config"`
				}
				require.NoError(t, json.Unmarshal(data, &raw))
				config = raw.Config
			}
			r.check(t, res, config)
		})
	}
}

func mustFaults(t *testing.T, names string) []nemesis.Fault {
	f, err := nemesis.Parse(names)
	require.NoError(t, err)
	return f
}

// countEvents is an Observer that counts what it sees.
type countEvents struct{ n *atomic.Int64 }

func (c countEvents) Observe(histories.Event) { c.n.Add(1) }
