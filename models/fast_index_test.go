package models

import (
	"testing"

	"github.com/fencecheck/fencecheck/histories"
)

// TestFastIndexCollisions gives every value the same hash: the index must
// still tell the values apart by comparing them.
func TestFastIndexCollisions(t *testing.T) {
	t.Parallel()
	ops := []histories.Operation{
		{F: histories.FWrite, Value: "a", HasValue: true, Token: 1, Status: histories.StatusAccepted},
		{F: histories.FWrite, Value: "b", HasValue: true, Token: 2, Status: histories.StatusAccepted},
		{F: histories.FWrite, Value: "c", HasValue: true, Token: 3, Status: histories.StatusRejected},
		{F: histories.FRead, Value: "b", HasValue: true, Status: histories.StatusOK},
		{F: histories.FRead, Value: "z", HasValue: true, Status: histories.StatusOK},
	}
	values := make([]string, len(ops))
	recs := make([]fastRecord, len(ops))
	for i := range ops {
		values[i] = ops[i].Value
		recs[i] = fastRecord{hash: 42, pos: int32(i)}
	}
	pb := &fastProblem{ops: ops, values: values, recs: recs, writes: []fastWrite{{op: 0}, {op: 1}}}
	ix := newFastIndex(3)
	for k, w := range []int32{0, 1, -1 - 2} {
		if _, dup := pb.lookup(&ix, int32(k)); dup {
			t.Fatalf("value %q found before it was inserted", values[k])
		}
		pb.insert(&ix, int32(k), w)
	}
	tests := []struct {
		record int32
		want   int32
		found  bool
	}{
		{0, 0, true},
		{1, 1, true},
		{2, -3, true},
		{3, 1, true}, // the read of "b"
		{4, 0, false},
	}
	for _, tc := range tests {
		got, ok := pb.lookup(&ix, tc.record)
		if ok != tc.found || (ok && got != tc.want) {
			t.Errorf("lookup of %q: %d, %v; want %d, %v", values[tc.record], got, ok, tc.want, tc.found)
		}
	}
}
