package model

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestStatesBefore(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		before *hb
		want   []State
	}{
		{"nothing before: unwritten", new(hb), []State{{}}},
		{"the highest accepted write", new(hb).W(0, 1, "a", 0, 5, acc).W(1, 2, "b", 10, 15, acc).W(0, 1, "c", 20, 25, rej),
			[]State{{Token: 2, Value: "b", Written: true}}},
		{"an unknown write that may have come after it", new(hb).W(0, 2, "b", 0, 5, acc).W(1, 3, "c", 10, 0, unk),
			[]State{{Token: 3, Value: "c", Written: true}, {Token: 2, Value: "b", Written: true}}},
		{"an unknown write alone: unwritten or written", new(hb).W(1, 3, "c", 10, 0, unk),
			[]State{{}, {Token: 3, Value: "c", Written: true}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, StatesBefore(tc.before.Ops, Strict))
		})
	}
}
