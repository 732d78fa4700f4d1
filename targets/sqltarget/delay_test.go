package sqltarget

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/harness"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/targets"
)

// arrivals wraps a target and notes, for each write as it is sent to the
// database, whether a higher token had already been accepted there.
type arrivals struct {
	targets.Target
	mu       sync.Mutex
	accepted map[string]uint64
	overtook int // writes sent after a higher token was accepted
	answered int // of those, answered without an error
	rejected int // of those, rejected
}

func (a *arrivals) Write(ctx context.Context, resource string, token uint64, value string) (histories.Outcome, error) {
	a.mu.Lock()
	late := token < a.accepted[resource]
	a.mu.Unlock()
	out, err := a.Target.Write(ctx, resource, token, value)
	a.mu.Lock()
	defer a.mu.Unlock()
	if err == nil && out == histories.Accepted {
		a.accepted[resource] = max(a.accepted[resource], token)
	}
	if late {
		a.overtook++
		if err == nil {
			a.answered++
		}
		if err == nil && out == histories.Rejected {
			a.rejected++
		}
	}
	return out, err
}

// TestDelayHoldsStatementsOnTheirWay runs the delay fault alone: it holds
// statements the workers have issued before they reach the database, so
// older tokens arrive after newer ones, and the atomic upsert rejects them.
func TestDelayHoldsStatementsOnTheirWay(t *testing.T) {
	t.Parallel()
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			tgt, err := Open(context.Background(), e.spec(t), DefaultOptions())
			require.NoError(t, err)
			defer tgt.Close()
			wrapped := &arrivals{Target: tgt, accepted: make(map[string]uint64)}
			faults, err := nemesis.Parse("delay")
			require.NoError(t, err)
			cfg := harness.DefaultConfig()
			cfg.SetLeaseTTL(30 * time.Millisecond)
			cfg.Target.Receiver = struct {
				targets.Target
				targets.Setupper
				targets.Teardowner
			}{wrapped, tgt, tgt}
			cfg.Target.Name, cfg.Workload.Workers, cfg.Workload.Duration, cfg.Workload.Ops, cfg.Workload.OpTimeout = tgt.Name(), 8, 0, 400, 2*time.Second
			cfg.Nemesis.Faults, cfg.Runtime.Seed, cfg.Store.Dir, cfg.Gates.MinStale = faults, 1, schema.TempDir(t), 0
			res, err := harness.Run(context.Background(), cfg)
			require.NoError(t, err)
			assert.Equal(t, judge.Held, res.Verdict, res.Reason)
			assert.Positive(t, res.Coverage.FaultActions["delay"], "no write was delayed")
			assert.Positive(t, wrapped.overtook, "no delayed write reached the database after a newer token")
			assert.Equal(t, wrapped.answered, wrapped.rejected, "the atomic upsert rejects every write overtaken by a newer token")
		})
	}
}
