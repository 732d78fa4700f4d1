package main

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/harness"
)

// noFlag are the Config settings run has no flag for, each with why.
var noFlag = map[string]string{
	"Target.Name":          "derived from --target, credentials masked",
	"Workload.RepeatShare": "the article's fifth step, on by default; no run has needed another share",
	"Leases.Service":       "a Go caller's own lease service; the CLI opens an issuer (--leases)",
	"Runtime.VirtualClock": "a synctest bubble's clock, which only a go test has (fencetest)",
	"Runtime.Latency":      "the delay simulated on a virtual clock, a constant of the simulation",
	"Runtime.Started":      "the wall clock when the run starts",
	"Gates.ShrinkTimeout":  "run shrinks within the default bound; check --shrink-timeout sets it for a recorded history",
	"Store.Keep":           "sweep keeps only violating runs; run keeps every run",
	"Output.Command":       "the reproduce line run builds from its own flags",
	"Output.Terms":         "run's own words for its flags",
	"Output.Version":       "this fencecheck's version",
	"Output.Progress":      "the progress line on a terminal (--no-progress turns it off)",
	"Output.Observer":      "--metrics serves the events it observes",
	"Output.Calibration":   "what --calibrate measured on the twins, which the CLI runs before the run",
}

// flagArgs are, for each setting run has a flag for, the flag given with
// a value other than its default, as the reproduce line must repeat it.
var flagArgs = map[string][]string{
	"Target.Receiver":          {"--target", "memory://fenced"},
	"Target.MaxToken":          {"--max-token", "1000000"},
	"Workload.Workers":         {"--workers", "3"},
	"Workload.Resources":       {"--resources", "2"},
	"Workload.ResourceNames":   {"--resource-names", "a,b,c,d", "--resources", "4"},
	"Workload.Shard":           {"--shard", "1/2", "--job", "reach"},
	"Workload.Duration":        {"--duration", "2s"},
	"Workload.Ops":             {"--ops", "150"},
	"Workload.Rate":            {"--rate", "1000"},
	"Workload.ReadShare":       {"--read-share", "0.5"},
	"Workload.Burst":           {"--burst", "0.5"},
	"Workload.Think":           {"--think", "7ms"},
	"Workload.OpTimeout":       {"--op-timeout", "1s"},
	"Workload.Strategy":        {"--client-strategy", "renew"},
	"Workload.LeaseMultiplier": {"--client-strategy", "longer-lease", "--lease-multiplier", "2"},
	"Workload.RenewEvery":      {"--client-strategy", "renew", "--renew-every", "20ms"},
	"Workload.ClockSkew":       {"--client-strategy", "renew", "--clock-skew", "200ms"},
	"Leases.TTL":               {"--lease-ttl", "50ms"},
	"Leases.Issuer":            {"--leases", "local"}, // the default: only another issuer is in the line, and each needs a server
	"Leases.Tokens":            {"--tokens", "from:1000"},
	"Nemesis.Faults":           {"--nemesis", "expire"},
	"Nemesis.Schedule":         {"--nemesis", "pause", "--nemesis-script", "0s:+pause"},
	"Runtime.Seed":             {"--seed", "99"},
	"Runtime.Deterministic":    {"--realtime"},
	"Runtime.TaskOrder":        {"--schedule", "pct:2"},
	"Gates.Policy":             {"--policy", "accept-equal"},
	"Gates.RequireExclusive":   {"--require", "exclusive"},
	"Gates.MinStale":           {"--min-stale", "5"},
	"Gates.StopOnViolation":    {"--stop-on-violation"},
	"Gates.CheckTimeout":       {"--check-timeout", "30s"},
	"Store.Dir":                {"--store", "elsewhere"},
	"Store.RunName":            {"--name", "named-run"},
	"Store.NoReport":           {"--no-report"},
}

// TestEveryConfigFieldHasItsFlag: a user of the CLI reaches every setting
// of a run that a flag can reach, and gets a reproduce line that repeats
// it. Every setting of harness.Config, walked by reflection, has a flag
// (fieldFlags, which also words Config's errors) or is in noFlag with
// why; each flag is one run takes, and a run given it prints a reproduce
// line that carries it (the flags that only say where output goes are
// left out of the line, and only those).
func TestEveryConfigFieldHasItsFlag(t *testing.T) {
	t.Parallel()
	var leaves []string
	ct := reflect.TypeFor[harness.Config]()
	for i := range ct.NumField() {
		g := ct.Field(i)
		if !g.IsExported() {
			continue
		}
		for j := range g.Type.NumField() {
			if f := g.Type.Field(j); f.IsExported() {
				leaves = append(leaves, g.Name+"."+f.Name)
			}
		}
	}
	flags := newRunCommand().Flags()
	for _, leaf := range leaves {
		flag, hasFlag := fieldFlags[leaf]
		_, why := noFlag[leaf]
		if !assert.True(t, hasFlag != why, "harness.Config.%s needs a flag in fieldFlags, or why it has none in noFlag", leaf) || !hasFlag {
			continue
		}
		assert.NotNil(t, flags.Lookup(flag), "run has no --%s", flag)
		assert.NotEmpty(t, flagArgs[leaf], "no value to give --%s", flag)
	}
	for leaf, args := range flagArgs {
		t.Run(leaf, func(t *testing.T) {
			t.Parallel()
			dir := schema.TempDir(t)
			given := map[string]bool{}
			for _, a := range args {
				given[a] = strings.HasPrefix(a, "--")
			}
			base := []string{"run", "--json", "--no-progress"}
			for _, f := range [][]string{{"--target", "memory://fenced"}, {"--ops", "100"}, {"--store", dir + "/s"}, {"--min-stale", "0"}} {
				if !given[f[0]] {
					base = append(base, f...)
				}
			}
			if given["--store"] {
				args = []string{"--store", dir + "/elsewhere"}
			}
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), append(base, args...), &stdout, &stderr)
			require.Contains(t, []int{exitHeld, exitViolated, exitInconclusive}, code, stderr.String())
			var res struct {
				Config struct {
					Command string `json:"command"`
				} `json:"config"`
			}
			require.NoError(t, json.Unmarshal(stdout.Bytes(), &res), stdout.String())
			line := res.Config.Command
			for i := 0; i < len(args); i++ {
				flag := args[i]
				value := ""
				if i+1 < len(args) && !strings.HasPrefix(args[i+1], "--") {
					value, i = args[i+1], i+1
				}
				name := strings.TrimPrefix(flag, "--")
				switch {
				case slicesContains(outputOnly, name):
					assert.NotContains(t, line, flag+" ", "an output flag is left out of the reproduce line")
				case leaf == "Leases.Issuer":
					assert.NotContains(t, line, flag, "the default issuer is left out")
				case value == "":
					assert.Contains(t, line, flag)
				default:
					assert.Regexp(t, regexp.QuoteMeta(flag)+` '?`+regexp.QuoteMeta(value)+`'?( |$)`, line, "the reproduce line repeats %s %s", flag, value)
				}
			}
		})
	}
}

func slicesContains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
