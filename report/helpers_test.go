package report

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/fencecheck/fencecheck/histories"
)

// history builds a valid history of n operations on resources r0..r{k-1}:
// owners write with increasing tokens, old owners are refused, readers
// read; with stale set, resource r1 accepts one stale write half-way. It
// has a lease grant for every new token and a fault window.
func history(n, k int, stale bool) *histories.History {
	return build(historyOps(n, k, stale))
}

// historyOps is history's operations and other events, for a test to
// change before it builds the history.
func historyOps(n, k int, stale bool) ([]histories.Operation, []histories.Event) {
	var ops []histories.Operation
	var others []histories.Event
	tokens := make([]uint64, k)
	values := make([]string, k)
	now := int64(0)
	injected := false
	add := func(op histories.Operation) {
		op.ID = len(ops)
		op.InvokeIndex, op.CompleteIndex = int64(2*op.ID), int64(2*op.ID+1)
		ops = append(ops, op)
	}
	others = append(others, histories.Event{Process: -1, Actor: histories.ActorNemesis, F: histories.FStart, Fault: "pause", Time: 1000})
	for i := 0; i < n; i++ {
		r := i % k
		res := fmt.Sprintf("r%d", r)
		now += 1000
		op := histories.Operation{Process: i % 8, Resource: res, Call: now, Return: now + 500 + int64(i%7)*100}
		switch i % 5 {
		case 0, 1:
			tokens[r]++
			values[r] = fmt.Sprintf("v%d", i)
			op.F, op.Token, op.HasToken, op.Value, op.HasValue, op.Status = histories.FWrite, tokens[r], true, values[r], true, histories.StatusAccepted
			others = append(others, histories.Event{Process: -1, Actor: histories.ActorLease, F: histories.FAcquire, Resource: res, Token: tokens[r], Holder: i % 8, Time: now - 10})
		case 2:
			op.F, op.Token, op.HasToken, op.Value, op.HasValue, op.Status = histories.FWrite, max(tokens[r], 1)-1, true, fmt.Sprintf("old%d", i), true, histories.StatusRejected
			if tokens[r] == 0 {
				op.Token, op.Status = 0, histories.StatusRejected
			}
		default:
			op.F, op.Status = histories.FRead, histories.StatusOK
			op.Value, op.HasValue, op.Token, op.HasToken = values[r], tokens[r] > 0, tokens[r], tokens[r] > 0
		}
		if stale && !injected && i >= n/2 && r == 1 && i%5 >= 3 && tokens[r] > 1 {
			injected = true
			op.F, op.Token, op.HasToken, op.Value, op.HasValue, op.Status = histories.FWrite, tokens[r]-1, true, "stale", true, histories.StatusAccepted
		}
		add(op)
	}
	others = append(others, histories.Event{Process: -1, Actor: histories.ActorNemesis, F: histories.FStop, Fault: "pause", Time: now / 2})
	renumber(ops, others)
	return ops, others
}

// build is the history of ops and others.
func build(ops []histories.Operation, others []histories.Event) *histories.History {
	h := histories.FromOperations(ops)
	h.Others = others
	return h
}

// renumber gives every event an index in time order, as a recorder would.
func renumber(ops []histories.Operation, others []histories.Event) {
	type ev struct {
		at  int64
		set func(int64)
	}
	var evs []ev
	for i := range ops {
		op := &ops[i]
		evs = append(evs, ev{op.Call, func(x int64) { op.InvokeIndex = x }}, ev{op.Return, func(x int64) { op.CompleteIndex = x }})
	}
	for i := range others {
		e := &others[i]
		evs = append(evs, ev{e.Time, func(x int64) { e.Index = x }})
	}
	slices.SortStableFunc(evs, func(a, b ev) int { return cmp.Compare(a.at, b.at) })
	for i, e := range evs {
		e.set(int64(i))
	}
	slices.SortStableFunc(others, func(a, b histories.Event) int { return cmp.Compare(a.Index, b.Index) })
}
