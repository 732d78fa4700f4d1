package explore

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/fencecheck/fencecheck/harness"
	"github.com/fencecheck/fencecheck/lease"
	"github.com/fencecheck/fencecheck/nemesis"
)

// Swarm testing (Groce, Zhang, Eide, Chen, Regehr: "Swarm Testing",
// ISSTA 2012): rather than run every seed with one configuration that
// enables every feature, each seed draws its own, with a random subset
// of the features. Features suppress bugs as well as provoke them: a run
// with expire ends leases early and gives a paused worker's lease away
// before the pause's own reassignment; many reads crowd out the writes
// whose interleaving is the race; one resource makes every worker
// contend, eight spread them out; a long think lets a lease run out in
// the middle of a job, a think of zero never does. A single configuration
// fixes one balance of these; a swarm of them reaches interleavings that
// no one configuration makes likely.
//
// What is drawn, and from what (each choice uniform unless said):
//
//	faults      each fault of Space.Faults with probability 1/2, at least one
//	workers     2, 3, 4, 6, 8, 12, 16: one worker cannot make a stale write
//	resources   1, 2, 3, 4, 8 (kept with fixed resource names)
//	lease TTL   10, 25, 50, 100, 250 ms: how often leases change hands
//	think       0, 1/16, 1/4, 1/2 or 1 lease TTL, the mean time a worker
//	            works between reading and writing
//	read share  0, 0.2, 0.5, 0.8: extra reads after a job
//	tokens      dense (3 in 4), sparse (1 in 4), which crosses 2^31, 2^32,
//	            2^53 and 2^63 (kept dense with another lease service)
//
// Everything else (the run's length, policy, gates, client strategy) is
// the caller's. The draw comes from its own generator seeded by the seed,
// apart from the run's, so that the seed alone gives both, and the run's
// own choices are those of a run with the drawn flags and that seed.
var (
	swarmWorkers   = []int{2, 3, 4, 6, 8, 12, 16}
	swarmResources = []int{1, 2, 3, 4, 8}
	swarmTTLs      = []time.Duration{10 * time.Millisecond, 25 * time.Millisecond, 50 * time.Millisecond, 100 * time.Millisecond, 250 * time.Millisecond}
	swarmThink     = []float64{0, 1.0 / 16, 1.0 / 4, 1.0 / 2, 1}
	swarmReads     = []float64{0, 0.2, 0.5, 0.8}
)

// swarmStream separates the draw's generator from the run's, which the
// same seed drives.
const swarmStream = 0x5a4a2d_5eed

// Space is what a swarm draws from.
type Space struct {
	// Faults are the faults a draw takes a subset of; empty,
	// nemesis.Names(), the faults every target has.
	Faults []string
	// FixedResources keeps the run's resources: their names are fixed
	// (harness.Config.ResourceNames), so their number is not drawn.
	FixedResources bool
	// DenseTokens keeps the tokens dense: the leases come from a service
	// other than the run's own, which does not renumber its tokens.
	DenseTokens bool
	_           struct{} // keyed fields only: the struct may grow
}

// Draw is the configuration one seed of a swarm runs with.
type Draw struct {
	Faults []string `json:"nemesis"`
	// Workers and, unless Space.FixedResources, Resources (0 otherwise).
	Workers   int           `json:"workers"`
	Resources int           `json:"resources,omitempty"`
	LeaseTTL  time.Duration `json:"lease_ttl_ns"`
	Think     time.Duration `json:"think_ns"`
	ReadShare float64       `json:"read_share"`
	// Tokens is lease.Tokens's name: dense or sparse.
	Tokens string `json:"tokens"`
}

// DrawSwarm returns the configuration seed draws from space: the same
// for the same seed and space, always.
func DrawSwarm(seed uint64, space Space) Draw {
	rng := rand.New(rand.NewPCG(seed, swarmStream))
	pool := space.Faults
	if len(pool) == 0 {
		pool = nemesis.Names()
	}
	var d Draw
	for _, f := range pool {
		if rng.IntN(2) == 1 {
			d.Faults = append(d.Faults, f)
		}
	}
	if len(d.Faults) == 0 {
		d.Faults = []string{pool[rng.IntN(len(pool))]}
	}
	d.Workers = pick(rng, swarmWorkers)
	if r := pick(rng, swarmResources); !space.FixedResources {
		d.Resources = r
	}
	d.LeaseTTL = pick(rng, swarmTTLs)
	d.Think = time.Duration(pick(rng, swarmThink) * float64(d.LeaseTTL))
	d.ReadShare = pick(rng, swarmReads)
	d.Tokens = lease.Dense().String()
	if sparse := rng.IntN(4) == 0; sparse && !space.DenseTokens {
		d.Tokens = lease.Sparse().String()
	}
	return d
}

// pick draws one of choices. Every draw is made whether or not its value
// is used, so that what a seed draws for one setting never depends on
// the space's other settings.
func pick[T any](rng *rand.Rand, choices []T) T { return choices[rng.IntN(len(choices))] }

// Apply sets the draw on c, with faults the drawn faults made afresh for
// the run: the lease TTL and the timings that follow it
// (harness.Config.SetLeaseTTL), then the think time, the workers, the
// resources unless they are fixed, the read share and the tokens. The
// stale-write gate stays c's: a draw without a fault that makes stale
// writes is inconclusive unless a stale write came all the same.
func (d Draw) Apply(c *harness.Config, faults []nemesis.Fault) error {
	tokens, err := lease.ParseTokens(d.Tokens)
	if err != nil {
		return fmt.Errorf("swarm draw: %w", err)
	}
	c.SetLeaseTTL(d.LeaseTTL)
	c.Workload.Think, c.Workload.Workers, c.Workload.ReadShare, c.Leases.Tokens = d.Think, d.Workers, d.ReadShare, tokens
	if d.Resources > 0 {
		c.Workload.Resources = d.Resources
	}
	c.Nemesis.Faults = faults
	return nil
}

// String words the draw for people, in one line.
func (d Draw) String() string {
	res := ""
	if d.Resources > 0 {
		res = fmt.Sprintf("%d resources, ", d.Resources)
	}
	return fmt.Sprintf("nemesis %s; %d workers, %slease TTL %s, think %s, read share %g, tokens %s",
		strings.Join(d.Faults, ","), d.Workers, res, d.LeaseTTL, d.Think, d.ReadShare, d.Tokens)
}
