package judge

import (
	"testing"

	"github.com/fencecheck/fencecheck/histories"
)

// TestWrittenSetIsExact checks what the foreign-value finding relies on:
// a value counts as written on a resource only when a write of that
// resource wrote it, whatever another resource or a read holds.
func TestWrittenSetIsExact(t *testing.T) {
	t.Parallel()
	ops := []histories.Operation{
		{ID: 0, F: histories.FWrite, Resource: "a", Value: "v1", HasValue: true},
		{ID: 1, F: histories.FRead, Resource: "a", Value: "v2", HasValue: true},
		{ID: 2, F: histories.FWrite, Resource: "b", Value: "v3", HasValue: true},
		{ID: 3, F: histories.FWrite, Resource: "a"},
	}
	s := newWrittenSet(ops)
	for _, c := range []struct {
		resource, value string
		want            bool
	}{
		{"a", "v1", true},
		{"b", "v3", true},
		{"a", "v2", false}, // only read
		{"a", "v3", false}, // written on another resource
		{"b", "v1", false},
		{"a", "", false}, // a write without a value writes none
	} {
		if got := s.has(c.resource, c.value); got != c.want {
			t.Errorf("has(%q, %q) = %v, want %v", c.resource, c.value, got, c.want)
		}
	}
}
