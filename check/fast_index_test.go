package check

import (
	"testing"

	"github.com/fencecheck/fencecheck/histories"
)

// TestFastIndexCollisions gives every value the same hash: the index must
// still tell the values apart by comparing them, find values written
// twice, and find the write of each value a read returned.
func TestFastIndexCollisions(t *testing.T) {
	t.Parallel()
	ops := []histories.Operation{
		{F: histories.FWrite, Value: "a", HasValue: true, Token: 1, Status: histories.StatusAccepted},
		{F: histories.FWrite, Value: "b", HasValue: true, Token: 2, Status: histories.StatusAccepted},
		{F: histories.FWrite, Value: "c", HasValue: true, Token: 3, Status: histories.StatusRejected},
		{F: histories.FWrite, Value: "b", HasValue: true, Token: 4, Status: histories.StatusAccepted},
		{F: histories.FRead, Value: "b", HasValue: true, Status: histories.StatusOK},
		{F: histories.FRead, Value: "z", HasValue: true, Status: histories.StatusOK},
	}
	c := histories.FromOperations(ops)
	writes := make([]fastWrite, 4)
	for i := range writes {
		writes[i] = fastWrite{hash: 42, op: int32(i)}
	}
	ix := new(fastScratch).index(len(writes))
	for w := range 3 {
		if _, dup := ix.lookup(c, writes, 42, ops[w].Value); dup {
			t.Fatalf("value %q found before it was inserted", ops[w].Value)
		}
		if _, dup := ix.insert(c, writes, int32(w)); dup {
			t.Fatalf("value %q inserted twice", ops[w].Value)
		}
	}
	if prev, dup := ix.insert(c, writes, 3); !dup || prev != 1 {
		t.Errorf("inserting \"b\" again: %d, %v; want the first writer, 1, true", prev, dup)
	}
	tests := []struct {
		op    int
		want  int32
		found bool
	}{
		{0, 0, true},
		{1, 1, true},
		{2, 2, true},
		{4, 1, true}, // the read of "b"
		{5, 0, false},
	}
	for _, tc := range tests {
		got, ok := ix.lookup(c, writes, 42, ops[tc.op].Value)
		if ok != tc.found || (ok && got != tc.want) {
			t.Errorf("lookup of %q: %d, %v; want %d, %v", ops[tc.op].Value, got, ok, tc.want, tc.found)
		}
	}
}
