package workload_test

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/lease"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/sched"
	"github.com/fencecheck/fencecheck/targets/memory"
	"github.com/fencecheck/fencecheck/workload"
)

// slowHold holds worker 0 at its first pause point as a real issuer's
// lapse does: for a long while (its lease runs out meanwhile), then until
// a newer owner of the resource wrote. It tells the pool it holds the
// worker when told to.
type slowHold struct {
	pool  *workload.Pool
	rt    sched.Runtime
	tell  bool
	held  bool
	token uint64
}

func (h *slowHold) Pause(ctx context.Context, _ nemesis.Env, pp nemesis.PausePoint) {
	if pp.Worker != 0 || h.held {
		return
	}
	h.held, h.token = true, pp.Token
	if h.tell {
		done := h.pool.Holding(pp.Worker)
		defer done()
	}
	_ = h.rt.Sleep(ctx, 10*time.Second)
	h.pool.NewerAccepted(pp.Resource, pp.Token).Wait(ctx, 10*time.Second)
}

// TestAHeldWorkerWritesPastTheOperationBound: an operation-bounded run
// whose budget is spent while the nemesis holds a worker for a stale
// write goes on until a newer owner wrote, and the held worker's stale
// write is sent; without the hold declared, the run ends first and the
// stale write is never sent.
func TestAHeldWorkerWritesPastTheOperationBound(t *testing.T) {
	for _, tell := range []bool{true, false} {
		sim := sched.NewSim(3)
		rec := histories.NewRecorder(io.Discard, histories.RecorderOptions{Clock: sim, Retain: true})
		life, end := context.WithCancel(context.Background())
		leases := lease.NewLocal(life, sim, rec, 100*time.Millisecond)
		cfg := baseConfig()
		cfg.Resources, cfg.Ops, cfg.RepeatShare = []string{"r0"}, 20, 0
		h := &slowHold{tell: tell, rt: sim}
		pool, err := workload.New(cfg, workload.Run{Runtime: sim, Recorder: rec, Rand: sched.NewRand(3), Leases: leases,
			Target: memory.NewFenced(), Pausers: []nemesis.Pauser{h}, Life: life})
		require.NoError(t, err)
		h.pool = pool
		require.NoError(t, sim.Run(func() {
			pool.Start(context.Background()).Wait(context.Background(), 0)
			pool.Settle(time.Second)
			end()
		}))
		require.NoError(t, rec.Close())
		require.True(t, h.held)
		var stale, ops int
		for _, e := range rec.Events() {
			if e.Process >= 0 && e.Type == histories.TypeInvoke {
				ops++
			}
			if e.Type == histories.TypeOK && e.F == histories.FWrite && e.Token == h.token && e.Outcome == histories.Rejected {
				stale++
			}
		}
		if tell {
			assert.Equal(t, 1, stale, "the held worker's stale write was sent and rejected")
			assert.Greater(t, ops, cfg.Ops, "the run went on past its bound while the worker was held")
		} else {
			assert.Zero(t, stale, "without the hold declared, the bound ends the run first")
			assert.LessOrEqual(t, ops, cfg.Ops)
		}
	}
}
