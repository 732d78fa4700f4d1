package workload_test

import (
	"context"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/lease"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/sched"
	"github.com/fencecheck/fencecheck/targets"
	"github.com/fencecheck/fencecheck/targets/memory"
	"github.com/fencecheck/fencecheck/workload"
)

// pauseSpy records every pause point workers stop at.
type pauseSpy struct {
	mu     sync.Mutex
	points []nemesis.PausePoint
}

func (s *pauseSpy) Pause(_ context.Context, _ nemesis.Env, p nemesis.PausePoint) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.points = append(s.points, p)
}

// runPool runs a pool to its end on the deterministic runtime against the
// correct in-memory receiver and returns the events it recorded.
func runPool(t *testing.T, cfg workload.Config, seed uint64, pausers ...nemesis.Pauser) []histories.Event {
	t.Helper()
	return runPoolOn(t, cfg, seed, memory.NewFenced(), pausers...)
}

// runPoolOn is runPool against tgt.
func runPoolOn(t *testing.T, cfg workload.Config, seed uint64, tgt targets.Target, pausers ...nemesis.Pauser) []histories.Event {
	t.Helper()
	sim := sched.NewSim(seed)
	rec := histories.NewRecorder(io.Discard, histories.RecorderOptions{Clock: sim, Retain: true})
	life, end := context.WithCancel(context.Background())
	defer end()
	leases := lease.NewLocal(life, sim, rec, 100*time.Millisecond)
	pool, err := workload.New(cfg, workload.Run{Runtime: sim, Recorder: rec, Rand: sched.NewRand(seed), Leases: leases,
		Target: tgt, Pausers: pausers, Life: life})
	require.NoError(t, err)
	require.NoError(t, sim.Run(func() {
		pool.Start(context.Background()).Wait(context.Background(), 0)
		pool.Settle(time.Second)
		end()
	}))
	require.NoError(t, rec.Close())
	return rec.Events()
}

func baseConfig() workload.Config {
	return workload.Config{Workers: 4, Resources: []string{"r0", "r1"}, ValuePrefix: "t-", Ops: 200,
		ReadShare: 0.2, RepeatShare: 0.2, Think: 10 * time.Millisecond, OpTimeout: time.Second, Latency: 500 * time.Microsecond}
}

// grant names a lease: tokens increase per resource.
type grant struct {
	resource string
	token    uint64
}

// grants returns the leases granted, from the lease events.
func grants(events []histories.Event) map[grant]bool {
	g := map[grant]bool{}
	for _, e := range events {
		if e.Actor == histories.ActorLease && e.F == histories.FAcquire {
			g[grant{e.Resource, e.Token}] = true
		}
	}
	return g
}

func TestWorkersWriteWithTheirLeasesToken(t *testing.T) {
	cfg := baseConfig()
	events := runPool(t, cfg, 1)
	holder := map[grant]int{} // granted so far, in history order
	writes := 0
	for _, e := range events {
		if e.Actor == histories.ActorLease && e.F == histories.FAcquire {
			holder[grant{e.Resource, e.Token}] = e.Holder
		}
		if e.Actor != "" || e.F != histories.FWrite || e.Type != histories.TypeInvoke {
			continue
		}
		writes++
		h, ok := holder[grant{e.Resource, e.Token}]
		require.True(t, ok, "write %d carries token %d to %s before any lease on it granted that token", e.Index, e.Token, e.Resource)
		// A worker's process id moves up by Workers+1 after an unknown
		// outcome, so the worker is the process modulo that.
		assert.Equal(t, h, e.Process%(cfg.Workers+1), "write %d: token %d on %s was granted to worker %d", e.Index, e.Token, e.Resource, h)
	}
	assert.NotZero(t, writes)
}

func TestOpsBoundsTheClientOperations(t *testing.T) {
	for _, ops := range []int{1, 7, 200} {
		t.Run("", func(t *testing.T) {
			cfg := baseConfig()
			cfg.Ops = ops
			n := 0
			for _, e := range runPool(t, cfg, 2) {
				if e.Actor == "" && e.Type == histories.TypeInvoke {
					n++
				}
			}
			assert.Equal(t, ops, n)
		})
	}
}

func TestRepeatShareDecidesTheSecondWriteWithTheSameToken(t *testing.T) {
	for _, tc := range []struct {
		name   string
		repeat float64
	}{{"never", 0}, {"always", 1}} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := baseConfig()
			cfg.RepeatShare, cfg.ReadShare = tc.repeat, 0
			perToken := map[grant]int{}
			for _, e := range runPool(t, cfg, 3) {
				if e.Actor == "" && e.F == histories.FWrite && e.Type == histories.TypeInvoke {
					perToken[grant{e.Resource, e.Token}]++
				}
			}
			require.NotEmpty(t, perToken)
			for tok, n := range perToken {
				if tc.repeat == 0 {
					assert.Equal(t, 1, n, "%v written %d times without repeats", tok, n)
				} else {
					// The last job may run out of the operation budget
					// between its two writes.
					assert.LessOrEqual(t, n, 2, "%v", tok)
				}
			}
			if tc.repeat == 1 {
				twice := 0
				for _, n := range perToken {
					if n == 2 {
						twice++
					}
				}
				assert.GreaterOrEqual(t, twice, len(perToken)-1, "with RepeatShare 1 every job but the last writes twice")
			}
		})
	}
}

func TestValuesNameOneJob(t *testing.T) {
	seen := map[string]uint64{}
	for _, e := range runPool(t, baseConfig(), 4) {
		if e.Actor != "" || e.F != histories.FWrite || e.Type != histories.TypeInvoke {
			continue
		}
		assert.Regexp(t, `^t-w\d+-j\d+(-again)?$`, e.Value)
		if tok, dup := seen[e.Value]; dup {
			t.Errorf("value %q written twice (tokens %d and %d)", e.Value, tok, e.Token)
		}
		seen[e.Value] = e.Token
	}
}

func TestWorkersStopAtThePausePointBeforeEveryJobsWrite(t *testing.T) {
	spy := &pauseSpy{}
	cfg := baseConfig()
	cfg.RepeatShare = 0
	events := runPool(t, cfg, 5, spy)
	granted := grants(events)
	var writes []histories.Event
	for _, e := range events {
		if e.Actor == "" && e.F == histories.FWrite && e.Type == histories.TypeInvoke {
			writes = append(writes, e)
		}
	}
	require.NotEmpty(t, writes)
	// Every write was preceded by a pause point with its token; a pause
	// point whose write fell outside the budget may have no write.
	points := map[grant]nemesis.PausePoint{}
	for _, p := range spy.points {
		points[grant{p.Resource, p.Token}] = p
		assert.True(t, granted[grant{p.Resource, p.Token}], "pause point of token %d on %s: no such lease", p.Token, p.Resource)
	}
	for _, w := range writes {
		p, ok := points[grant{w.Resource, w.Token}]
		require.True(t, ok, "write with token %d had no pause point", w.Token)
		assert.Equal(t, w.Resource, p.Resource)
		assert.Equal(t, w.Process, p.Process)
	}
}

func TestTheSameSeedGivesTheSameHistory(t *testing.T) {
	a, b := runPool(t, baseConfig(), 9), runPool(t, baseConfig(), 9)
	assert.Equal(t, a, b)
}
