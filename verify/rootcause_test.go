package verify

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/model"
	"github.com/fencecheck/fencecheck/targets/memory"
)

// TestMarkRootCauses: a user reading a table of failures learns which
// may follow from a failed scope row (every other failure, played before
// it or after) or restart-durability row (the failures played after it),
// and never sees a root cause, a row the receiver went away during, or
// the receiver's log marked as following from another.
func TestMarkRootCauses(t *testing.T) {
	t.Parallel()
	type row struct {
		name   string
		result Result
		exited bool
	}
	cases := []struct {
		name string
		rows []row
		want map[string][]string // scenario → FollowsFrom
	}{
		{"scope passed: nothing follows from it",
			[]row{{"stale-after-newer", Fail, false}, {"scope", Pass, false}, {"acknowledged-writes", Fail, false}}, nil},
		{"scope failed: the failures before and after it may follow from it",
			[]row{{"stale-after-newer", Pass, false}, {"equal-token-repeat", Fail, false}, {"old-token-first", Info, false},
				{"scope", Fail, false}, {"acknowledged-writes", Fail, false}, {"restart-durability", Skip, false}},
			map[string][]string{"equal-token-repeat": {"scope"}, "acknowledged-writes": {"scope"}}},
		{"restart-durability failed: only what was played after it",
			[]row{{"digit-boundaries", Fail, false}, {"restart-durability", Fail, false}, {"later", Fail, false}},
			map[string][]string{"later": {"restart-durability"}}},
		{"both failed: a root cause follows from neither, a row after both from both",
			[]row{{"equal-token-repeat", Fail, false}, {"scope", Fail, false}, {"restart-durability", Fail, false}, {"later", Fail, false}},
			map[string][]string{"equal-token-repeat": {"scope"}, "later": {"scope", "restart-durability"}}},
		{"a row the receiver went away during is its own cause",
			[]row{{"digit-boundaries", Fail, true}, {"scope", Fail, false}, {"acknowledged-writes", Fail, false}},
			map[string][]string{"acknowledged-writes": {"scope"}}},
		{"a scope row the receiver went away during is no root cause",
			[]row{{"equal-token-repeat", Fail, false}, {"scope", Fail, true}}, nil},
		{"the receiver's log is evidence of its own",
			[]row{{"scope", Fail, false}, {"restart-durability", Pass, false}, {ReceiverLog, Fail, false}}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rows := make([]Row, len(tc.rows))
			for i, r := range tc.rows {
				rows[i] = Row{Scenario: r.name, Result: r.result, exited: r.exited}
			}
			markRootCauses(rows)
			got := map[string][]string{}
			for _, r := range rows {
				if len(r.FollowsFrom) > 0 {
					got[r.Scenario] = r.FollowsFrom
				}
			}
			if tc.want == nil {
				tc.want = map[string][]string{}
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

// TestOneStoreFailsScopeFirst: against a receiver that keeps one store
// for every resource, scope fails, every other failure is marked as
// following from it in the rows and the table, and the summary names
// scope first.
func TestOneStoreFailsScopeFirst(t *testing.T) {
	t.Parallel()
	rows := battery(t, memory.NewOneStore(), options(model.Strict, false))
	var followers []string
	for _, r := range rows {
		switch {
		case r.Scenario == scope.name:
			assert.Equal(t, Fail, r.Result)
			assert.Empty(t, r.FollowsFrom)
		case r.Result == Fail:
			assert.Equal(t, []string{scope.name}, r.FollowsFrom, r.Scenario)
			followers = append(followers, r.Scenario)
		default:
			assert.Empty(t, r.FollowsFrom, r.Scenario)
		}
	}
	require.NotEmpty(t, followers)
	var table strings.Builder
	require.NoError(t, WriteTable(&table, rows))
	assert.Regexp(t, `(?m)^\| scope \| .* \| FAIL \|$`, table.String())
	assert.Equal(t, len(followers), strings.Count(table.String(), " | FAIL (may follow from scope) |\n"))
	assert.Regexp(t, `^\d+ passed, \d+ failed, \d+ info, \d+ skipped: scope failed, and `+followers[0]+`, .* may follow from it$`, Summary(rows))
}
