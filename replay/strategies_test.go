package replay

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/check"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/model"
	"github.com/fencecheck/fencecheck/targets"
	"github.com/fencecheck/fencecheck/targets/memory"
	"github.com/fencecheck/fencecheck/workload"
)

// TestStrategyTable is the article's review of the tempting fixes "against
// the same timeline", computed by the workers of each strategy: A's old
// result is rejected only when A fences and the receiver checks tokens;
// every other strategy, against either receiver, has A's stale write
// accepted (a longer lease, a renewal or a check does not stop a paused
// worker); and the cost shows: B waits for A's longer lease.
func TestStrategyTable(t *testing.T) {
	t.Parallel()
	rep, err := Run(context.Background(), seedReceivers())
	require.NoError(t, err)
	require.Len(t, rep.Strategies, 2*len(workload.Strategies()))
	latency := map[string]int64{}
	for i, row := range rep.Strategies {
		s := workload.Strategies()[i/2]
		receiver := []string{"unfenced", "fenced"}[i%2]
		t.Run(s.String()+"/"+receiver, func(t *testing.T) {
			assert.Equal(t, s.String(), row.Strategy)
			assert.Equal(t, receiver, row.Receiver)
			assert.Equal(t, 2, row.Jobs, "A and B both wrote: nobody abandoned")
			assert.Zero(t, row.UnnecessaryReassignments, "the one reassignment is of a paused worker")
			if s == workload.Fencing && receiver == "fenced" {
				assert.Equal(t, "rejected", row.AWrite)
				assert.Zero(t, row.StaleAccepted)
				assert.Equal(t, string(check.Held), row.Verdict)
			} else {
				assert.Equal(t, "accepted", row.AWrite)
				assert.Equal(t, 1, row.StaleAccepted)
				assert.Equal(t, string(check.Violated), row.Verdict)
			}
			assert.Equal(t, "B's new result", row.Final, "B's repeat (step 5) comes last")
		})
		latency[row.Strategy] = int64(row.LatencyP99)
	}
	assert.Greater(t, latency["longer-lease"], latency["none"]+int64(strategyConfig(workload.None).Leases.TTL),
		"B waits for A's lease three times as long")
}

// TestStrategyTracesShowTheStrategy: each row's trace, judged again,
// gives the row's verdict, and holds what the strategy did: under renew
// A renews before its pause and never while held; no other strategy
// renews.
func TestStrategyTracesShowTheStrategy(t *testing.T) {
	t.Parallel()
	rep, err := Run(context.Background(), seedReceivers())
	require.NoError(t, err)
	require.Len(t, rep.StrategyTraces, len(rep.Strategies))
	for i, tr := range rep.StrategyTraces {
		row := rep.Strategies[i]
		t.Run(tr.Name, func(t *testing.T) {
			assert.Equal(t, row.Trace, tr.Name)
			h, err := histories.Pair(tr.Events)
			require.NoError(t, err)
			res, err := check.Check(context.Background(), h, check.Options{Policy: model.AcceptEqual})
			require.NoError(t, err)
			assert.Equal(t, row.Verdict, string(res.Verdict))
			var paused, resumed int64 = -1, -1
			var aRenewals []int64
			for _, e := range tr.Events {
				switch {
				case e.Actor == histories.ActorNemesis && e.F == histories.FBegin:
					paused = e.Time
				case e.Actor == histories.ActorNemesis && e.F == histories.FEnd:
					resumed = e.Time
				case e.Actor == histories.ActorLease && e.F == histories.FRenew && e.Holder == workerA:
					aRenewals = append(aRenewals, e.Time)
				}
			}
			require.Positive(t, paused)
			require.Greater(t, resumed, paused)
			if row.Strategy == workload.Renew.String() {
				require.NotEmpty(t, aRenewals, "A renews while it works")
			} else {
				assert.Empty(t, aRenewals)
			}
			for _, at := range aRenewals {
				assert.False(t, at > paused && at < resumed, "A renewed at %d while held (%d–%d)", at, paused, resumed)
			}
		})
	}
}

// TestStrategyTableNeedsTokenlessReceivers: a receiver that cannot be sent
// a write without its token cannot play the strategies that do not fence.
func TestStrategyTableNeedsTokenlessReceivers(t *testing.T) {
	t.Parallel()
	_, err := Run(context.Background(), Receivers{
		Fenced:   func() targets.Target { return struct{ targets.Target }{memory.NewFenced()} },
		Unfenced: func() targets.Target { return memory.NewUnfenced() },
	})
	require.ErrorContains(t, err, "strategy none against the fenced receiver: client strategy none writes without a token")
}
