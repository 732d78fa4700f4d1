package harness

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/lease"
	"github.com/fencecheck/fencecheck/targets/memory"
)

// slowIssuer opens lease.Local after a while, as an issuer whose servers
// take long to start on a loaded machine.
type slowIssuer struct{ takes time.Duration }

func (slowIssuer) Name() string { return "slow-issuer" }

func (i slowIssuer) Open(_ context.Context, env lease.Env) (lease.Service, error) {
	time.Sleep(i.takes)
	return lease.NewLocal(env.Life, env.Runtime, env.Recorder, env.TTL), nil
}

// TestDurationCountsFromTheOpenIssuer: an issuer that takes longer to open
// than the run's duration does not eat it: the workers still work for the
// duration, from when the issuer is open.
func TestDurationCountsFromTheOpenIssuer(t *testing.T) {
	t.Parallel()
	res, err := Run(context.Background(), testConfig(t, memory.NewFenced(), "memory://fenced", func(c *Config) {
		c.Runtime.Deterministic, c.Leases.Issuer, c.Workload.Duration = false, slowIssuer{takes: 2 * time.Second}, time.Second
	}))
	require.NoError(t, err)
	assert.Positive(t, res.Coverage.LeaseGrants, "the workers took leases")
	assert.Greater(t, res.Counts.Writes, 0, "and wrote")
}
