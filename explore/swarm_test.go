package explore

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/harness"
	"github.com/fencecheck/fencecheck/lease"
	"github.com/fencecheck/fencecheck/nemesis"
)

// TestDrawSwarmIsTheSeeds: the same seed draws the same configuration,
// always; a seed's draw of one setting does not depend on whether another
// is drawn.
func TestDrawSwarmIsTheSeeds(t *testing.T) {
	t.Parallel()
	for seed := range uint64(200) {
		a, b := DrawSwarm(seed, Space{}), DrawSwarm(seed, Space{})
		require.Equal(t, a, b, "seed %d", seed)
		fixed := DrawSwarm(seed, Space{FixedResources: true, DenseTokens: true})
		assert.Zero(t, fixed.Resources)
		assert.Equal(t, lease.Dense().String(), fixed.Tokens)
		fixed.Resources, fixed.Tokens = a.Resources, a.Tokens
		assert.Equal(t, a, fixed, "seed %d: the other settings are drawn the same", seed)
	}
}

// TestDrawSwarmVaries: across seeds the draws cover every choice of every
// setting, every fault of the pool is drawn and left out, and no draw is
// without a fault or has one outside the pool.
func TestDrawSwarmVaries(t *testing.T) {
	t.Parallel()
	pool := []string{"pause", "delay", "expire"}
	workers, resources, ttls, reads, tokens := map[int]bool{}, map[int]bool{}, map[time.Duration]bool{}, map[float64]bool{}, map[string]bool{}
	thinks := map[float64]bool{}
	with, without := map[string]int{}, map[string]int{}
	distinct := map[string]bool{}
	const seeds = 500
	for seed := range uint64(seeds) {
		d := DrawSwarm(seed, Space{Faults: pool})
		require.NotEmpty(t, d.Faults, "seed %d", seed)
		for _, f := range pool {
			if slices.Contains(d.Faults, f) {
				with[f]++
			} else {
				without[f]++
			}
		}
		for _, f := range d.Faults {
			require.Contains(t, pool, f)
		}
		workers[d.Workers], resources[d.Resources], ttls[d.LeaseTTL], reads[d.ReadShare], tokens[d.Tokens] = true, true, true, true, true
		thinks[float64(d.Think)/float64(d.LeaseTTL)] = true
		distinct[d.String()] = true
	}
	assert.Len(t, workers, len(swarmWorkers))
	assert.Len(t, resources, len(swarmResources))
	assert.Len(t, ttls, len(swarmTTLs))
	assert.Len(t, reads, len(swarmReads))
	assert.Len(t, thinks, len(swarmThink))
	assert.Len(t, tokens, 2)
	for _, f := range pool {
		assert.Positive(t, with[f], f)
		assert.Positive(t, without[f], f)
	}
	assert.Greater(t, len(distinct), seeds*9/10, "nearly every seed draws a configuration of its own")
	assert.Equal(t, nemesis.Names(), func() []string {
		var all []string
		for seed := range uint64(100) {
			for _, f := range DrawSwarm(seed, Space{}).Faults {
				if !slices.Contains(all, f) {
					all = append(all, f)
				}
			}
		}
		slices.SortFunc(all, func(a, b string) int { return slices.Index(nemesis.Names(), a) - slices.Index(nemesis.Names(), b) })
		return all
	}(), "an empty pool is every fault of the nemesis package")
}

// TestDrawApply: a draw sets what it drew and the timings that follow the
// lease, and leaves the stale-write gate as the sweep asked: a draw
// without a fault that makes stale writes is no pass unless one came.
func TestDrawApply(t *testing.T) {
	t.Parallel()
	d := Draw{Faults: []string{"expire"}, Workers: 3, Resources: 2, LeaseTTL: 25 * time.Millisecond, Think: 0, ReadShare: 0.5, Tokens: "sparse"}
	faults, err := nemesis.Parse("expire")
	require.NoError(t, err)
	c := harness.DefaultConfig()
	require.NoError(t, d.Apply(&c, faults))
	assert.Equal(t, 3, c.Workload.Workers)
	assert.Equal(t, 2, c.Workload.Resources)
	assert.Equal(t, 25*time.Millisecond, c.Leases.TTL)
	assert.Equal(t, 100*time.Millisecond, c.Workload.OpTimeout, "the timings follow the lease")
	assert.Zero(t, c.Workload.Think)
	assert.Equal(t, 0.5, c.Workload.ReadShare)
	assert.Equal(t, lease.Sparse(), c.Leases.Tokens)
	assert.Equal(t, harness.DefaultConfig().Gates.MinStale, c.Gates.MinStale, "expire alone still needs a stale write for a pass")
	assert.Equal(t, "nemesis expire; 3 workers, 2 resources, lease TTL 25ms, think 0s, read share 0.5, tokens sparse", d.String())
}
