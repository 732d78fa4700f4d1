package workload_test

import (
	"context"
	"regexp"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/targets"
	"github.com/fencecheck/fencecheck/targets/memory"
	"github.com/fencecheck/fencecheck/workload"
)

var traceID = regexp.MustCompile(`^[0-9a-f]{32}$`)

func TestTraceIDsAreUniqueWithinARunAndNeverZero(t *testing.T) {
	traces, spans := make(map[[16]byte]bool), make(map[[8]byte]bool)
	for process := range 300 {
		for seq := range uint64(100) {
			tc := workload.TraceFor("k3x9q2", process, seq)
			require.True(t, tc.Valid(), "process %d op %d", process, seq)
			require.False(t, traces[tc.TraceID], "process %d op %d: trace id %s drawn twice", process, seq, tc.TraceIDString())
			require.False(t, spans[tc.SpanID], "process %d op %d: span id drawn twice", process, seq)
			traces[tc.TraceID], spans[tc.SpanID] = true, true
		}
	}
}

func TestTraceIDsFollowFromTheRunsSeed(t *testing.T) {
	for _, op := range []struct {
		process int
		seq     uint64
	}{{0, 0}, {3, 17}, {9, 0}} {
		a := workload.TraceFor("k3x9q2", op.process, op.seq)
		assert.Equal(t, a, workload.TraceFor("k3x9q2", op.process, op.seq), "a rerun of the seed sends the same ids")
		assert.NotEqual(t, a.TraceID, workload.TraceFor("k3x9q3", op.process, op.seq).TraceID, "another run sends other ids")
		assert.NotEqual(t, a.TraceID, workload.TraceFor("k3x9q2 shard 1/2", op.process, op.seq).TraceID, "another shard sends other ids")
	}
}

// tracedTarget is the correct in-memory receiver as a target that
// carries traces: it remembers the trace context each request came with.
type tracedTarget struct {
	targets.Target
	mu   sync.Mutex
	seen []string // trace ids, one per request; "" for none
}

func (t *tracedTarget) CarriesTrace() bool { return true }

func (t *tracedTarget) saw(ctx context.Context) {
	tc, _ := targets.TraceFrom(ctx)
	id := ""
	if tc.Valid() {
		id = tc.TraceIDString()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.seen = append(t.seen, id)
}

func (t *tracedTarget) Write(ctx context.Context, resource string, token uint64, value string) (histories.Outcome, error) {
	t.saw(ctx)
	return t.Target.Write(ctx, resource, token, value)
}

func (t *tracedTarget) Read(ctx context.Context, resource string) (targets.Reading, error) {
	t.saw(ctx)
	return t.Target.Read(ctx, resource)
}

// lines are events as the recorder writes them.
func lines(events []histories.Event) []string {
	var out []string
	for _, e := range events {
		out = append(out, string(histories.AppendJSON(nil, &e)))
	}
	return out
}

func TestEveryOperationOfACarryingTargetHasItsOwnTrace(t *testing.T) {
	cfg := baseConfig()
	cfg.TraceSeed = "k3x9q2"
	tgt := &tracedTarget{Target: memory.NewFenced()}
	events := runPoolOn(t, cfg, 9, tgt)
	seen := make(map[string]int)
	for _, id := range tgt.seen {
		require.Regexp(t, traceID, id, "every request of an operation carries its trace context")
		seen[id]++
	}
	ids := make(map[string]bool)
	for _, e := range events {
		switch {
		case e.Actor == "" && e.Type == histories.TypeInvoke:
			require.Regexp(t, traceID, e.Trace, "invocation %d", e.Index)
			assert.False(t, ids[e.Trace], "trace id %s recorded twice", e.Trace)
			ids[e.Trace] = true
			assert.Equal(t, 1, seen[e.Trace], "the request of invocation %d carried the id recorded on it", e.Index)
		default:
			assert.Empty(t, e.Trace, "event %d: only invocations carry a trace id", e.Index)
		}
	}
	assert.Len(t, tgt.seen, len(ids), "every request belongs to one recorded invocation")
	assert.Positive(t, len(ids))
}

func TestTheSameSeedSendsTheSameTraceIDs(t *testing.T) {
	cfg := baseConfig()
	cfg.TraceSeed = "k3x9q2"
	a := lines(runPoolOn(t, cfg, 9, &tracedTarget{Target: memory.NewFenced()}))
	b := lines(runPoolOn(t, cfg, 9, &tracedTarget{Target: memory.NewFenced()}))
	assert.Equal(t, a, b)
	assert.Contains(t, a[0]+a[1]+a[2], `"trace":"`)
	cfg.TraceSeed = "p0m1n2" // a real-time run's run id: drawn at random
	c := lines(runPoolOn(t, cfg, 9, &tracedTarget{Target: memory.NewFenced()}))
	assert.NotEqual(t, a, c)
}

func TestAMemoryTargetsHistoryHasNoTrace(t *testing.T) {
	cfg := baseConfig()
	cfg.TraceSeed = "k3x9q2"
	for _, line := range lines(runPoolOn(t, cfg, 9, memory.NewFenced())) {
		assert.NotContains(t, line, `"trace"`)
	}
}
