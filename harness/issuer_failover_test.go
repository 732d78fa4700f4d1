package harness

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/lease"
	redislease "github.com/fencecheck/fencecheck/lease/redis"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/targets/memory"
)

// TestIssuerFailoverToAReplica: a run whose tokens come from a private
// redis-server with an asynchronous replica, which issuer-failover
// promotes after the primary handed out tokens the replica never
// received, is violated by the issuer, and the violation names the
// failover; with grants that wait for the replica, those tokens were
// refused instead, and the run is not violated.
func TestIssuerFailoverToAReplica(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath(redislease.ServerName); err != nil {
		t.Skipf("%s is not installed (%v): no private issuer to fail over", redislease.ServerName, err)
	}
	for _, tc := range []struct {
		query    string
		violated bool
	}{
		{"replicas=1", true},
		{"replicas=1&wait=1", false},
	} {
		t.Run(tc.query, func(t *testing.T) {
			t.Parallel()
			settings, err := redislease.ParseSettings(tc.query)
			require.NoError(t, err)
			tgt, err := memory.Open("fenced")
			require.NoError(t, err)
			script, err := nemesis.ParseScript("0s:+pause,0s:+delay")
			require.NoError(t, err)
			res, err := Run(context.Background(), testConfig(t, tgt, "memory://fenced", func(c *Config) {
				// Bounded by its work: the failover comes on the primary's
				// third token since the replica fell behind, and the
				// workers wait at their pause point while it is under way,
				// so grants follow it however slow the machine.
				c.Runtime.Deterministic, c.Workload.Duration, c.Workload.Ops = false, 0, 120
				c.Workload.OpTimeout = 2 * time.Second
				c.Leases.Issuer = redislease.NewPrivateIssuer(settings, lease.DefaultPollOptions())
				c.Nemesis.Faults = []nemesis.Fault{nemesis.NewPause(), nemesis.NewDelay(), nemesis.NewIssuerFailover()}
				c.Nemesis.Schedule = script
			}))
			require.NoError(t, err)
			t.Logf("%s: %s: %s; %d leader changes, %d grants after the failover", tc.query, res.Verdict, res.Reason,
				res.Coverage.LeaderChanges, res.Coverage.GrantsAfterFailover)
			assert.Equal(t, 1, res.Coverage.FaultActions["issuer-failover"])
			assert.Equal(t, 1, res.Coverage.LeaderChanges)
			assert.Positive(t, res.Coverage.GrantsAfterFailover)
			if tc.violated {
				assert.Equal(t, judge.Violated, res.Verdict)
				require.NotEmpty(t, res.Check.Issuer)
				assert.Contains(t, res.Check.Issuer[0].After, "issuer-failover: the leader is now redis-server r1: redis-server r0 SIGKILLed and redis-server r1 promoted in its place")
				return
			}
			assert.NotEqual(t, judge.Violated, res.Verdict, res.Reason) // held, or inconclusive on a starved machine
			assert.Empty(t, res.Check.Issuer)
		})
	}
}
