package main

import (
	"fmt"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/harness"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/targets/memory"
	targetspec "github.com/fencecheck/fencecheck/targets/spec"
)

// TestConfigErrorNamesTheFlags: Config.Validate names fields; run words
// each by the flag that sets it, and a field without a flag as Config
// names it.
func TestConfigErrorNamesTheFlags(t *testing.T) {
	t.Parallel()
	pause, err := nemesis.Parse("pause")
	require.NoError(t, err)
	cases := []struct {
		name string
		set  func(*harness.Config)
		want string
	}{
		{"workers", func(c *harness.Config) { c.Workload.Workers = 0 }, "workers: 0 is not between 1 and 10000"},
		{"two fields", func(c *harness.Config) { c.Leases.TTL, c.Workload.ReadShare = 0, 2 },
			"lease-ttl: must be positive\nread-share: 2 is a probability, between 0 and 1"},
		{"no flag", func(c *harness.Config) { c.Runtime.Latency = -1 }, "Runtime.Latency: negative"},
		{"think", func(c *harness.Config) { c.Workload.Think = -1 }, "think: negative"},
		{"script", func(c *harness.Config) {
			c.Nemesis.Faults, c.Nemesis.Schedule = pause, nemesis.Script{Steps: []nemesis.Step{{Fault: "delay", On: true}}}
		}, `nemesis-script: nemesis script names fault "delay", which is not in --nemesis`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := harness.DefaultConfig()
			cfg.Target.Receiver = memory.NewFenced()
			tc.set(&cfg)
			err := cfg.Validate()
			require.Error(t, err)
			assert.Equal(t, tc.want, configError(err).Error())
		})
	}
}

// TestRunTermsAreFlags: advice names the flag that applies to the run's
// target, and none where none does: --exec starts only HTTP receivers,
// and a crash needs a receiver process fencecheck started.
func TestRunTermsAreFlags(t *testing.T) {
	t.Parallel()
	httpTarget, started, sql := runTerms{exec: true}, runTerms{exec: true, process: true}, runTerms{}
	cases := []struct {
		terms   runTerms
		setting harness.Setting
		want    string
	}{
		{sql, harness.Setting{Field: "Nemesis.Faults", Value: "delay"}, "--nemesis delay"},
		{httpTarget, harness.Setting{Field: "Target.Receiver", Value: "process"}, "--exec"},
		{sql, harness.Setting{Field: "Target.Receiver", Value: "process"}, ""},
		{sql, harness.Setting{Field: "Nemesis.Faults", Value: "kill"}, ""},
		{started, harness.Setting{Field: "Nemesis.Faults", Value: "kill"}, "--nemesis kill"},
		{sql, harness.Setting{Field: "Gates.RequireExclusive"}, "--require exclusive"},
		{sql, harness.Setting{Field: "Leases.TTL"}, "--lease-ttl"},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%+v %s", tc.terms, tc.setting.Field+tc.setting.Value), func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, tc.terms.Setting(tc.setting))
		})
	}
}

// TestThinkFlag: --think sets the mean think time; without it the think
// time follows --lease-ttl, a quarter of it.
func TestThinkFlag(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		want time.Duration
	}{
		{nil, 25 * time.Millisecond},
		{[]string{"--lease-ttl", "40ms"}, 10 * time.Millisecond},
		{[]string{"--lease-ttl", "40ms", "--think", "7ms"}, 7 * time.Millisecond},
		{[]string{"--think", "0s"}, 0},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprint(tc.args), func(t *testing.T) {
			t.Parallel()
			var f runFlags
			fl := pflag.NewFlagSet("run", pflag.ContinueOnError)
			f.register(fl, cmdRun)
			require.NoError(t, fl.Parse(tc.args))
			f.thinkSet = fl.Changed("think")
			tgt := &targetspec.Target{Target: memory.NewFenced(), Name: "memory://fenced", Deterministic: true}
			cfg, err := f.config(tgt, nil)
			require.NoError(t, err)
			assert.Equal(t, tc.want, cfg.Workload.Think)
		})
	}
}

// TestEffectiveSettingsHaveTheirFlags: every setting a run's reproduce
// line carries is one a flag of run sets, so none is lost on the way.
func TestEffectiveSettingsHaveTheirFlags(t *testing.T) {
	t.Parallel()
	cfg := harness.DefaultConfig()
	fl := pflag.NewFlagSet("run", pflag.ContinueOnError)
	var f runFlags
	f.register(fl, cmdRun)
	for field := range cfg.EffectiveSettings() {
		flag, ok := fieldFlags[field]
		require.True(t, ok, "%s has no flag", field)
		assert.NotNil(t, fl.Lookup(flag), "--%s", flag)
	}
}
