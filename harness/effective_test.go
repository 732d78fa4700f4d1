package harness

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/fencecheck/fencecheck/workload"
)

// TestEffectiveSettingsRepeatTheRun: the settings a repeating line gives
// carry the values the run used, and leave out (empty) those that do not
// apply to it.
func TestEffectiveSettingsRepeatTheRun(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		set  func(*Config)
		want map[string]string // the settings checked, with their values
	}{
		{"defaults in the simulation", func(c *Config) { c.Runtime.Deterministic, c.Runtime.Seed = true, 7 }, map[string]string{
			"Runtime.Seed": "7", "Runtime.TaskOrder": "random", "Workload.Strategy": "", "Workload.LeaseMultiplier": "", "Workload.RenewEvery": "",
		}},
		{"on the real clock", func(c *Config) { c.Runtime.Deterministic = false }, map[string]string{"Runtime.TaskOrder": ""}},
		{"ops alone", func(c *Config) { c.Workload.Ops, c.Workload.Duration = 150, 0 }, map[string]string{
			"Workload.Ops": "150", "Workload.Duration": "",
		}},
		{"a duration", func(c *Config) { c.Workload.Ops, c.Workload.Duration = 0, 2*time.Second }, map[string]string{
			"Workload.Ops": "", "Workload.Duration": "2s",
		}},
		{"longer leases", func(c *Config) { c.Workload.Strategy, c.Workload.LeaseMultiplier = workload.LongerLease, 2.5 }, map[string]string{
			"Workload.Strategy": "longer-lease", "Workload.LeaseMultiplier": "2.5", "Workload.RenewEvery": "",
		}},
		{"renewals", func(c *Config) { c.Workload.Strategy, c.Workload.RenewEvery = workload.Renew, 20*time.Millisecond }, map[string]string{
			"Workload.Strategy": "renew", "Workload.LeaseMultiplier": "", "Workload.RenewEvery": "20ms",
		}},
		{"the workload's size", func(c *Config) { c.Workload.Workers, c.Workload.Resources, c.Gates.MinStale = 3, 2, 0 }, map[string]string{
			"Workload.Workers": "3", "Workload.Resources": "2", "Gates.MinStale": "0",
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := DefaultConfig()
			tc.set(&c)
			got := c.EffectiveSettings()
			for field, want := range tc.want {
				assert.Equal(t, want, got[field], field)
			}
			assert.Equal(t, c.Leases.TTL.String(), got["Leases.TTL"])
			assert.Equal(t, c.Leases.Tokens.String(), got["Leases.Tokens"])
		})
	}
}
