package histories

import (
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCompactOpSize holds the compact operation to the size its doc
// comment promises: ten million operations in under half a gigabyte.
func TestCompactOpSize(t *testing.T) {
	t.Parallel()
	assert.LessOrEqual(t, unsafe.Sizeof(CompactOp{}), uintptr(48))
}

// TestOperationSize holds the full form to the size its doc comment
// promises: explaining a violation holds a resource's operations in it.
func TestOperationSize(t *testing.T) {
	t.Parallel()
	assert.LessOrEqual(t, unsafe.Sizeof(Operation{}), uintptr(128))
}

// TestFromOperationsExpand checks that operations survive the compact
// form unchanged: IDs that are not positions, far completions, traces,
// values of every length, the state before the run.
func TestFromOperationsExpand(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("v", arenaChunk+1)
	tests := []struct {
		name string
		ops  []Operation
	}{
		{"empty", nil},
		{"positions", []Operation{
			{ID: 0, Process: -1, F: FWrite, Resource: "r", Token: 3, HasToken: true, Value: "init", HasValue: true,
				Status: StatusAccepted, Call: InitialTime, Return: InitialTime, InvokeIndex: 0, CompleteIndex: 0, Initial: true},
			{ID: 1, Process: 7, F: FWrite, Resource: "r", Token: 4, HasToken: true, Value: "a", HasValue: true,
				Status: StatusUnknown, Call: 10, Return: Infinity, InvokeIndex: 1, CompleteIndex: -1, Trace: "0123"},
			{ID: 2, Process: 8, F: FRead, Resource: "s", Status: StatusOK, Call: 11, Return: 12, InvokeIndex: 2, CompleteIndex: 3},
			{ID: 3, Process: 9, F: FRead, Resource: "r", Token: 4, HasToken: true, Value: "", HasValue: true,
				Status: StatusOK, Call: 13, Return: 14, InvokeIndex: 4, CompleteIndex: 1 << 40},
			{ID: 4, Process: 1 << 40, F: FWrite, Resource: "s", Token: 0, HasToken: true, Value: long, HasValue: true,
				Status: StatusFailed, Call: 15, Return: 16, InvokeIndex: 5, CompleteIndex: 5 + spanFar},
		}},
		{"ids", []Operation{
			{ID: 5, Process: 1, F: FRead, Resource: "r", Status: StatusUnknown, Call: 1, Return: Infinity, InvokeIndex: 9, CompleteIndex: -1},
			{ID: 2, Process: 2, F: FWrite, Resource: "r", Token: 1, HasToken: true, Value: "x", HasValue: true,
				Status: StatusRejected, Call: 2, Return: 3, InvokeIndex: 10, CompleteIndex: 11},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := FromOperations(tc.ops)
			require.Len(t, c.Ops, len(tc.ops))
			got := c.Expand(nil)
			if len(tc.ops) == 0 {
				assert.Empty(t, got)
				return
			}
			assert.Equal(t, tc.ops, got)
			refs := make([]*Operation, len(tc.ops))
			for i := range tc.ops {
				refs[i] = &tc.ops[i]
			}
			assert.Equal(t, tc.ops, FromOperations(refs).Expand(nil), "the same history from references")
		})
	}
}
