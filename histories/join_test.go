package histories_test

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/internal/testsupport/histgen"
)

// shardHistory is a small history of one shard: the state before the
// run, a grant, a write and a read on resource by process 0, an
// unanswered write by process 1 with an error, and a fault window.
func shardHistory(t *testing.T, resource string, truncated bool) *histories.History {
	t.Helper()
	h, err := histories.Pair(shardEvents(resource))
	require.NoError(t, err)
	h.Truncated = truncated
	return h
}

// shardEvents are the events of shardHistory.
func shardEvents(resource string) []histories.Event {
	events := []histories.Event{
		initialAt(5, resource, resource+"-0", 1),
		{Time: 10, Process: -1, Actor: histories.ActorLease, F: histories.FAcquire, Resource: resource, Token: 2, HasToken: true, Holder: 0, HasHolder: true},
		{Time: 11, Process: -1, Actor: histories.ActorNemesis, F: histories.FStart, Fault: "pause"},
		{Time: 20, Process: 0, Type: histories.TypeInvoke, F: histories.FWrite, Resource: resource, Token: 2, HasToken: true, Value: resource + "-v", HasValue: true},
		{Time: 30, Process: 0, Type: histories.TypeOK, F: histories.FWrite, Resource: resource, Outcome: histories.Accepted},
		{Time: 40, Process: 1, Type: histories.TypeInvoke, F: histories.FWrite, Resource: resource, Token: 2, HasToken: true, Value: resource + "-w", HasValue: true},
		{Time: 50, Process: 1, Type: histories.TypeInfo, F: histories.FWrite, Resource: resource, Error: "status 503"},
		{Time: 60, Process: 0, Type: histories.TypeInvoke, F: histories.FRead, Resource: resource},
		{Time: 70, Process: 0, Type: histories.TypeOK, F: histories.FRead, Resource: resource, Token: 2, HasToken: true, Value: resource + "-v", HasValue: true},
		{Time: 80, Process: -1, Actor: histories.ActorNemesis, F: histories.FStop, Fault: "pause"},
	}
	for i := range events {
		events[i].Index = int64(i)
	}
	return events
}

// TestJoinLaysPartsEndToEnd: the second part's indexes, times and
// processes follow the first's; its resources, tokens and values are its
// own; the events, errors and truncation of both are kept; and the parts
// are not changed.
func TestJoinLaysPartsEndToEnd(t *testing.T) {
	t.Parallel()
	a, b := shardHistory(t, "r0", false), shardHistory(t, "r1", true)
	bOps := b.Expand(nil)
	h, placed, err := histories.Join([]histories.Part{{Name: "a.jsonl", History: a}, {Name: "b.jsonl", History: b}})
	require.NoError(t, err)
	assert.Equal(t, []histories.Placed{
		{Name: "a.jsonl", Index: 0, Time: 0, Process: 0, Processes: 2},
		{Name: "b.jsonl", Index: 10, Time: 81, Process: 2, Processes: 2, Truncated: true},
	}, placed)
	ops := h.Expand(nil)
	require.Len(t, ops, 8)
	assert.Equal(t, a.Expand(nil), ops[:4], "the first part stays as it is")
	initial := ops[4]
	assert.True(t, initial.Initial)
	assert.Equal(t, bOps[0].Call, initial.Call, "the state before the run stays before every operation")
	assert.Equal(t, -1, initial.Process)
	for i, op := range ops[5:] {
		orig := bOps[i+1]
		assert.Equal(t, 5+i, op.ID)
		assert.Equal(t, orig.Process+2, op.Process, "a process of its own")
		assert.Equal(t, orig.Call+81, op.Call)
		assert.Equal(t, orig.InvokeIndex+10, op.InvokeIndex)
		assert.Equal(t, orig.Resource, op.Resource)
		assert.Equal(t, orig.Value, op.Value)
		if orig.Return == histories.Infinity {
			assert.Equal(t, histories.Infinity, op.Return, "an unknown outcome stays unknown")
		} else {
			assert.Equal(t, orig.Return+81, op.Return)
		}
	}
	assert.Equal(t, bOps, b.Expand(nil), "the part is not changed")
	assert.Equal(t, 20, h.Events)
	assert.True(t, h.Truncated)
	require.Len(t, h.Errors.Kinds, 1, "one kind of error, from both parts")
	assert.Equal(t, 2, h.Errors.Kinds[0].Count)
	require.Len(t, h.Others, 6)
	assert.Equal(t, int64(10+81), h.Others[3].Time)
	assert.Equal(t, 0, h.Others[3].Holder, "a worker keeps its number")

	// The joined history is a history in its own right: its events, in
	// index order, pair again to the same operations.
	var events []histories.Event
	for i := range ops {
		invocation, completion := ops[i].Events()
		events = append(events, invocation)
		if !ops[i].Initial && ops[i].Return != histories.Infinity {
			events = append(events, completion)
		}
	}
	events = append(events, h.Others...)
	slices.SortFunc(events, func(a, b histories.Event) int { return cmp.Compare(a.Index, b.Index) })
	for i := 1; i < len(events); i++ {
		require.Less(t, events[i-1].Index, events[i].Index, "two events at one index")
		events[i].Time = max(events[i].Time, events[i-1].Time) // an initial state's event keeps no time
	}
	again, err := histories.Pair(events)
	require.NoError(t, err)
	assert.Len(t, again.Ops, len(ops))
}

// TestJoinRefusesASplitResource: a resource with events in two parts,
// client operations or lease events, is refused, naming the resource and
// both parts.
func TestJoinRefusesASplitResource(t *testing.T) {
	t.Parallel()
	leaseOnly, err := histories.Pair([]histories.Event{
		{Index: 0, Time: 1, Process: -1, Actor: histories.ActorLease, F: histories.FAcquire, Resource: "r0", Token: 9, HasToken: true},
	})
	require.NoError(t, err)
	for name, parts := range map[string][]histories.Part{
		"operations": {{Name: "a.jsonl", History: shardHistory(t, "r0", false)}, {Name: "b.jsonl", History: shardHistory(t, "r1", false)},
			{Name: "c.jsonl", History: shardHistory(t, "r0", false)}},
		"a lease event": {{Name: "a.jsonl", History: shardHistory(t, "r0", false)}, {Name: "c.jsonl", History: leaseOnly}},
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := histories.Join(parts)
			assert.EqualError(t, err, `resource "r0" is in a.jsonl and in c.jsonl: each history has its own clock, so a resource must be recorded by one process; the shards of one job must own disjoint resources`)
		})
	}
}

// TestJoinKeepsEachResourcesHistory: a generated history split by
// resource into parts and joined again holds, for every resource, the
// same operations in the same order, with the same outcomes and the same
// intervals up to one shift of time per part, and no process in two
// parts.
func TestJoinKeepsEachResourcesHistory(t *testing.T) {
	t.Parallel()
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 7))
		cfg := histgen.Small(r)
		cfg.Resources, cfg.Ops = 2+r.IntN(4), 5+r.IntN(40)
		ops := histgen.Generate(r, cfg)
		events := histgen.Events(ops)
		whole, err := histories.Pair(events)
		require.NoError(t, err)
		parts, partOf := splitByResource(t, events, 1+r.IntN(cfg.Resources))
		joined, placed, err := histories.Join(parts)
		require.NoError(t, err, "seed %d", seed)

		owner := make(map[int]string) // joined process → part
		for _, p := range placed {
			for proc := p.Process; proc < p.Process+p.Processes; proc++ {
				require.NotContains(t, owner, proc, "seed %d: process %d in two parts", seed, proc)
				owner[proc] = p.Name
			}
		}
		for res, want := range byResource(whole.Expand(nil)) {
			got := byResource(joined.Expand(nil))[res]
			require.Len(t, got, len(want), "seed %d resource %s", seed, res)
			var shift int64
			for i := range want {
				w, g := want[i], got[i]
				if i == 0 {
					shift = g.Call - w.Call
				}
				assert.Equal(t, w.Status, g.Status, "seed %d", seed)
				assert.Equal(t, w.Value, g.Value)
				assert.Equal(t, w.Token, g.Token)
				assert.Equal(t, w.Call+shift, g.Call, "seed %d: one shift per resource", seed)
				if w.Return != histories.Infinity {
					assert.Equal(t, w.Return+shift, g.Return)
				}
				assert.Equal(t, partOf[res], owner[g.Process], "seed %d: the process is of the resource's part", seed)
			}
		}
	}
}

// splitByResource splits events into n parts by resource, each paired,
// and says which part has each resource.
func splitByResource(t *testing.T, events []histories.Event, n int) ([]histories.Part, map[string]string) {
	t.Helper()
	split, part := histgen.SplitByResource(events, n)
	parts := make([]histories.Part, n)
	for i, evs := range split {
		h, err := histories.Pair(evs)
		require.NoError(t, err)
		parts[i] = histories.Part{Name: fmt.Sprintf("part%d.jsonl", i), History: h}
	}
	partOf := make(map[string]string)
	for res, k := range part {
		partOf[res] = parts[k].Name
	}
	return parts, partOf
}

func byResource(ops []histories.Operation) map[string][]histories.Operation {
	out := make(map[string][]histories.Operation)
	for _, op := range ops {
		out[op.Resource] = append(out[op.Resource], op)
	}
	return out
}

// initialAt is histories.InitialState at time at.
func initialAt(at int64, resource, value string, token uint64) histories.Event {
	e := histories.InitialState(resource, value, token, "")
	e.Time = at
	return e
}
