package check

import (
	"fmt"
	"testing"

	"github.com/fencecheck/fencecheck/histories"
)

// TestRecentWritesCollisions gives every value the same hash: the ring
// must still match a read with the write of its value by comparing the
// values, prefer the latest write it remembers, and forget writes older
// than its size, which collecting then leaves to the index.
func TestRecentWritesCollisions(t *testing.T) {
	t.Parallel()
	const n = 12 // more writes than the ring holds
	var ops []histories.Operation
	writes := make([]fastWrite, n)
	var ring recentWrites
	for w := range n {
		ops = append(ops, histories.Operation{F: histories.FWrite, Value: fmt.Sprintf("v%d", w%10), HasValue: true})
		writes[w] = fastWrite{hash: 42, op: int32(w)}
		ring.add(42, int32(w))
	}
	tests := []struct {
		value string
		want  int32
	}{
		{"v11", noMatch},    // never written
		{"v3", noMatch},     // written by write 3, which the ring forgot
		{"v9", 9},           // the latest write
		{"v4", 4},           // the oldest the ring remembers
		{"v0", 10},          // written by 0, forgotten, and by 10, remembered
		{"v1", 11},          // likewise
		{"", noMatch},       // the empty value, never written
		{"v9\x00", noMatch}, // a prefix is not a match
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%q", tc.value), func(t *testing.T) {
			if got := ring.find(42, tc.value, writes, histories.FromOperations(ops)); got != tc.want {
				t.Errorf("find(%q) = %d, want %d", tc.value, got, tc.want)
			}
		})
	}
}
