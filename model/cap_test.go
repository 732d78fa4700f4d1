package model

import (
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fencecheck/fencecheck/histories"
)

func TestFencingCap(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name            string
		policy          Policy
		ops             *hb
		wantReturn      map[int]int64 // op ID → return after the cap
		capped, dropped int
	}{
		{
			name:       "stale unknown write capped at the newer write's return",
			policy:     Strict,
			ops:        new(hb).W(0, 41, "old", 5, 0, unk).W(1, 42, "new", 0, 10, acc),
			wantReturn: map[int]int64{0: 10}, capped: 1,
		},
		{
			name:    "stale unknown write invoked after the newer write returned is dropped",
			policy:  Strict,
			ops:     new(hb).W(1, 42, "new", 0, 10, acc).W(0, 41, "old", 20, 0, unk),
			dropped: 1, wantReturn: map[int]int64{0: 10},
		},
		{
			name:       "equal token caps under strict",
			policy:     Strict,
			ops:        new(hb).W(1, 42, "new", 0, 10, acc).W(0, 42, "dup", 5, 0, unk),
			wantReturn: map[int]int64{1: 10}, capped: 1,
		},
		{
			name:       "equal token does not cap under accept-equal",
			policy:     AcceptEqual,
			ops:        new(hb).W(1, 42, "new", 0, 10, acc).W(0, 42, "dup", 5, 0, unk),
			wantReturn: map[int]int64{1: histories.Infinity},
		},
		{
			name:       "a higher unknown write is not capped by a lower accepted one",
			policy:     Strict,
			ops:        new(hb).W(1, 41, "a", 0, 10, acc).W(0, 42, "b", 5, 0, unk),
			wantReturn: map[int]int64{1: histories.Infinity},
		},
		{
			name:       "the earliest blocking return wins",
			policy:     Strict,
			ops:        new(hb).W(0, 10, "x", 0, 0, unk).W(1, 50, "a", 0, 40, acc).W(2, 20, "b", 0, 30, acc).W(3, 5, "c", 0, 100, acc),
			wantReturn: map[int]int64{0: 30}, capped: 1,
		},
		{
			name:       "accepted writes out of token order are sorted first",
			policy:     Strict,
			ops:        new(hb).W(1, 60, "a", 0, 40, acc).W(2, 20, "b", 0, 30, acc).W(3, 5, "c", 0, 15, acc).W(0, 30, "x", 0, 0, unk).W(4, 10, "y", 0, 0, unk),
			wantReturn: map[int]int64{3: 40, 4: 30}, capped: 2,
		},
		{
			name:       "nothing blocks the largest token under accept-equal",
			policy:     AcceptEqual,
			ops:        new(hb).W(1, math.MaxUint64, "a", 0, 10, acc).W(0, math.MaxUint64, "x", 5, 0, unk),
			wantReturn: map[int]int64{1: histories.Infinity},
		},
		{
			name:       "the largest token blocks itself under strict",
			policy:     Strict,
			ops:        new(hb).W(1, math.MaxUint64, "a", 0, 10, acc).W(0, math.MaxUint64, "x", 5, 0, unk),
			wantReturn: map[int]int64{1: 10}, capped: 1,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			original := slices.Clone(tc.ops.Ops)
			pos := make([]int32, len(original))
			for i := range pos {
				pos[i] = int32(i)
			}
			view := cappedView(tc.policy, tc.ops.Ops, pos)
			assert.Equal(t, original, tc.ops.Ops, "cappedView modified the history")
			kept, st := ApplyFencingCap(tc.policy, slices.Clone(tc.ops.Ops))
			// The fast checker's explanations read the view, Prepare's
			// groups are what ApplyFencingCap keeps: the same operations.
			if assert.Len(t, view, len(kept)) {
				for i := range view {
					assert.Equal(t, kept[i], *view[i], "operation %d of the view", i)
				}
			}
			assert.Equal(t, tc.capped, st.Capped)
			assert.Equal(t, tc.dropped, st.Dropped)
			assert.Len(t, kept, len(tc.ops.Ops)-tc.dropped)
			for _, op := range kept {
				if ret, ok := tc.wantReturn[op.ID]; ok {
					assert.Equal(t, ret, op.Return, "op %d", op.ID)
				}
			}
		})
	}
}
