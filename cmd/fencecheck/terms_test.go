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
		{"workers", func(c *harness.Config) { c.Workers = 0 }, "workers: 0 is not between 1 and 10000"},
		{"two fields", func(c *harness.Config) { c.LeaseTTL, c.ReadShare = 0, 2 },
			"lease-ttl: must be positive\nread-share: 2 is a probability, between 0 and 1"},
		{"no flag", func(c *harness.Config) { c.Latency = -1 }, "Latency: negative"},
		{"think", func(c *harness.Config) { c.Think = -1 }, "think: negative"},
		{"script", func(c *harness.Config) {
			c.Faults, c.Schedule = pause, nemesis.Script{Steps: []nemesis.Step{{Fault: "delay", On: true}}}
		}, `nemesis-script: nemesis script names fault "delay", which is not in --nemesis`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := harness.DefaultConfig()
			cfg.Target = memory.NewFenced()
			tc.set(&cfg)
			err := cfg.Validate()
			require.Error(t, err)
			assert.Equal(t, tc.want, configError(err).Error())
		})
	}
}

func TestRunTermsAreFlags(t *testing.T) {
	t.Parallel()
	cases := []struct {
		setting harness.Setting
		want    string
	}{
		{harness.Setting{Field: "Faults", Value: "delay"}, "--nemesis delay"},
		{harness.Setting{Field: "Target", Value: "process"}, "--exec"},
		{harness.Setting{Field: "RequireExclusive"}, "--require exclusive"},
	}
	for _, tc := range cases {
		t.Run(tc.want, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, runTerms{}.Setting(tc.setting))
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
			assert.Equal(t, tc.want, cfg.Think)
		})
	}
}
