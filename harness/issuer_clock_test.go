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
	redislease "github.com/fencecheck/fencecheck/lease/redis"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/runstore"
	"github.com/fencecheck/fencecheck/targets/memory"
)

// TestIssuerClockJump: the private redis-server's clock jumps forward
// while a worker holds a lease, so the server ends the lease at once and
// grants it again: two workers hold one lease. A user relies on two
// things. With the exclusive requirement, a write the older holder got
// accepted after its lease ended makes the run VIOLATED, naming it; and
// the correct receiver's history stays linearizable for a fenced
// register all the same, since the tokens still order the holders. On a
// starved machine the newer holder may not come in time: the run then
// has no such write, and is not violated for it.
func TestIssuerClockJump(t *testing.T) {
	t.Parallel()
	iss := redislease.NewPrivateIssuer(redislease.DefaultSettings(), lease.DefaultPollOptions())
	if err := iss.ClockJumps(); err != nil {
		t.Skipf("no private redis-server whose clock can jump here: %v", err)
	}
	tgt, err := memory.Open("fenced")
	require.NoError(t, err)
	res, err := Run(context.Background(), testConfig(t, tgt, "memory://fenced", func(c *Config) {
		// Bounded by its work, not by time: a loaded machine gets the
		// same work, only later.
		c.Runtime.Deterministic, c.Leases.Issuer, c.Workload.Duration, c.Workload.Ops = false, iss, 0, 300
		c.Workload.OpTimeout = 2 * time.Second
		c.Nemesis.Faults, c.Gates.RequireExclusive, c.Gates.MinStale = []nemesis.Fault{nemesis.NewIssuerClock()}, true, 0
	}))
	require.NoError(t, err)
	assert.Empty(t, res.Check.Violations, "the correct receiver orders the two holders by their tokens")
	h, err := histories.Read(t.Context(), histories.Source{Path: filepath.Join(res.Dir, runstore.History)})
	require.NoError(t, err)
	jumped := false
	for _, e := range h.Others {
		if e.Actor == histories.ActorNemesis && e.Fault == "issuer-clock" && e.F == histories.FEnd {
			jumped = jumped || strings.Contains(e.Detail, "clock reads 1s ahead")
		}
	}
	assert.True(t, jumped, "the server's clock read the jump")
	t.Logf("verdict %s: %s; %d writes accepted after their lease had ended", res.Verdict, res.Reason, len(res.Exclusive))
	if len(res.Exclusive) > 0 {
		assert.Equal(t, judge.Violated, res.Verdict, res.Reason)
		assert.Contains(t, res.Reason, "exclusive")
	} else {
		assert.NotEqual(t, judge.Violated, res.Verdict, res.Reason)
	}
}

// TestIssuerClockRefusedWithoutAClockThatJumps: a run with issuer-clock
// on an issuer whose clock fencecheck cannot jump is refused before it
// starts, saying why.
func TestIssuerClockRefusedWithoutAClockThatJumps(t *testing.T) {
	t.Parallel()
	tgt, err := memory.Open("fenced")
	require.NoError(t, err)
	cfg := testConfig(t, tgt, "memory://fenced", func(c *Config) {
		c.Runtime.Deterministic, c.Leases.Issuer = false, serverIssuer{&localIssuer{}}
		c.Nemesis.Faults = []nemesis.Fault{nemesis.NewIssuerClock()}
	})
	err = cfg.Validate()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "issuer-clock needs an issuer whose clock fencecheck can jump")
}

// serverIssuer is an issuer that says it has servers, and no clock that
// jumps.
type serverIssuer struct{ lease.Issuer }

func (serverIssuer) HasServers() bool { return true }
