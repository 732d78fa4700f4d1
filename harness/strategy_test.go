package harness

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/lease"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/runstore"
	"github.com/fencecheck/fencecheck/sched"
	"github.com/fencecheck/fencecheck/targets"
	"github.com/fencecheck/fencecheck/targets/memory"
	"github.com/fencecheck/fencecheck/workload"
)

// strategyRun is a deterministic run of strategy s against the memory
// receiver name under pause and delay, with a fixed seed.
func strategyRun(t *testing.T, name string, s workload.Strategy, set func(*Config)) Result {
	t.Helper()
	tgt, err := memory.Open(name)
	require.NoError(t, err)
	faults, err := nemesis.Parse("pause,delay")
	require.NoError(t, err)
	res, err := Run(context.Background(), testConfig(t, tgt, "memory://"+name, func(c *Config) {
		c.Nemesis.Faults, c.Runtime.Seed, c.Workload.Strategy = faults, 7, s
		c.Workload.Duration, c.Gates.ShrinkTimeout, c.Store.NoReport = 2*time.Second, 0, true
		if set != nil {
			set(c)
		}
	}))
	require.NoError(t, err)
	return res
}

// TestOnlyFencingHoldsAgainstTheFencedReceiver is the article's review of
// the tempting fixes, on the deterministic simulation: under pause and
// delay, against memory://fenced only the fencing workers hold; every
// other strategy sends writes the receiver cannot reject, and has stale
// writes accepted. Against memory://unfenced every strategy has stale
// writes accepted (fencing too: the receiver ignores the token),
// check-before-write included: a pause or a delayed request comes after
// the check.
func TestOnlyFencingHoldsAgainstTheFencedReceiver(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"fenced", "unfenced"} {
		for _, s := range workload.Strategies() {
			t.Run(name+"/"+s.String(), func(t *testing.T) {
				t.Parallel()
				res := strategyRun(t, name, s, nil)
				t.Logf("%s: %s, %d stale writes accepted, job latency p50 %v p99 %v, %d leases taken from live workers",
					s, res.Verdict, res.Coverage.StaleAccepted, res.Jobs.LatencyP50, res.Jobs.LatencyP99, res.Jobs.UnnecessaryReassignments)
				assert.Equal(t, s.String(), res.Config.ClientStrategy)
				assert.Positive(t, res.Jobs.Jobs)
				if name == "fenced" && s == workload.Fencing {
					assert.Equal(t, judge.Held, res.Verdict, res.Reason)
					assert.Zero(t, res.Coverage.StaleAccepted)
					assert.Positive(t, res.Coverage.StaleRejected)
					return
				}
				assert.Equal(t, judge.Violated, res.Verdict, res.Reason)
				assert.Positive(t, res.Coverage.StaleAccepted, "stale writes accepted")
			})
		}
	}
}

// TestLongerLeaseIssuesLongerLeases: with longer-lease the run's own
// lease service grants leases of LeaseTTL × LeaseMultiplier (a lease that
// runs out does so that long after its grant), while the pauses (up to
// two LeaseTTLs) and the other timings keep following LeaseTTL.
func TestLongerLeaseIssuesLongerLeases(t *testing.T) {
	t.Parallel()
	res := strategyRun(t, "unfenced", workload.LongerLease, func(c *Config) { c.Workload.LeaseMultiplier = 1.5 })
	assert.Equal(t, "150ms", res.Config.IssuedTTL)
	assert.Equal(t, "100ms", res.Config.LeaseTTL)
	h, err := histories.Read(t.Context(), histories.Source{Path: filepath.Join(res.Dir, runstore.History)})
	require.NoError(t, err)
	granted := map[[2]any]int64{}
	ranOut := 0
	for _, e := range h.Others {
		if e.Actor != histories.ActorLease {
			continue
		}
		k := [2]any{e.Resource, e.Token}
		switch {
		case e.F == histories.FAcquire:
			granted[k] = e.Time
		case e.F == histories.FExpire && containsTTL(e.Detail):
			ranOut++
			// The recorder may move events of one instant apart by a few ns.
			assert.InDelta(t, int64(150*time.Millisecond), e.Time-granted[k], 1000, e.Detail)
		}
	}
	assert.Positive(t, ranOut, "no lease ran out by its TTL")
	assert.Contains(t, res.Summary(), "strategy    longer-lease: a longer lease; no token sent, no renewal, no check; leases of 150ms (1.5 × 100ms)")
}

func containsTTL(detail string) bool { return strings.HasSuffix(detail, "TTL elapsed") }

// TestStrategyMetricsInTheResult: every run measures its jobs; the
// summary shows the strategy and its cost only when the workers do not
// fence, so that a default run's summary is as it was.
func TestStrategyMetricsInTheResult(t *testing.T) {
	t.Parallel()
	fencing := strategyRun(t, "fenced", workload.Fencing, nil)
	assert.Positive(t, fencing.Jobs.Jobs)
	assert.Positive(t, fencing.Jobs.LatencyP50)
	assert.LessOrEqual(t, fencing.Jobs.LatencyP50, fencing.Jobs.LatencyP99)
	assert.NotContains(t, fencing.Summary(), "strategy ")
	renew := strategyRun(t, "fenced", workload.Renew, nil)
	assert.Equal(t, "33.333333ms", renew.Config.RenewEvery)
	assert.Contains(t, renew.Summary(), "strategy    renew: renews its lease while it works; no token sent; every 33.333333ms")
	assert.Regexp(t, `cost        \d+ jobs wrote \(0 abandoned\), job latency p50 \S+ p99 \S+; \d+ leases taken from live workers`, renew.Summary())
}

// noRenew is the run's lease service without its optional capabilities.
type noRenew struct{ lease.Service }

// plain is a target that cannot write without a token.
type plain struct{ targets.Target }

func TestValidateStrategy(t *testing.T) {
	t.Parallel()
	local := lease.NewLocal(context.Background(), sched.NewReal(), nil, time.Second)
	for _, tc := range []struct {
		name string
		set  func(*Config)
		want string
	}{
		{"multiplier below 1", func(c *Config) { c.Workload.Strategy, c.Workload.LeaseMultiplier = workload.LongerLease, 0.5 },
			"LeaseMultiplier: 0.5: a longer lease is at least as long as LeaseTTL"},
		{"longer lease from a given service", func(c *Config) { c.Workload.Strategy, c.Leases.Service = workload.LongerLease, local },
			"Strategy: longer-lease needs the run to open its lease service"},
		{"no renewal interval", func(c *Config) { c.Workload.Strategy, c.Workload.RenewEvery = workload.Renew, 0 },
			"RenewEvery: must be positive with renew"},
		{"a target that cannot write without a token", func(c *Config) { c.Workload.Strategy, c.Target.Receiver = workload.None, plain{memory.NewFenced()} },
			"Strategy: none writes without a token, and memory://x cannot: targets: the target has no way to send a write without its fencing token"},
		{"a lease service that cannot renew", func(c *Config) { c.Workload.Strategy, c.Leases.Service = workload.Renew, noRenew{local} },
			"Leases.Service: client strategy renew renews leases, and the lease service cannot"},
		{"no such strategy", func(c *Config) { c.Workload.Strategy = workload.Strategy(99) }, "Strategy: Strategy(99) is not a strategy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(t, memory.NewFenced(), "memory://x", tc.set)
			assert.ErrorContains(t, cfg.Validate(), tc.want)
		})
	}
	cfg := testConfig(t, memory.NewFenced(), "memory://x", nil)
	assert.NoError(t, cfg.Validate())
}

// TestTheNemesisExpiryIsNoUnnecessaryReassignment: leases the expire
// fault ends early are taken from live workers on purpose; they are the
// fault, not a cost of the strategy, and are not counted.
func TestTheNemesisExpiryIsNoUnnecessaryReassignment(t *testing.T) {
	t.Parallel()
	res := strategyRun(t, "unfenced", workload.None, func(c *Config) {
		c.Nemesis.Faults, c.Gates.MinStale = []nemesis.Fault{nemesis.NewExpire()}, 0
	})
	require.Positive(t, res.Coverage.FaultActions["expire"], "the nemesis expired leases")
	assert.Zero(t, res.Jobs.UnnecessaryReassignments)
}
