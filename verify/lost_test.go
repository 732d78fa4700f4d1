package verify

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/model"
	"github.com/fencecheck/fencecheck/targets/memory"
)

// losingTarget fences correctly but acknowledges every every-th write it
// would accept without storing it.
type losingTarget struct {
	*memory.Fenced
	every    int
	mu       sync.Mutex
	accepted int
}

func (l *losingTarget) Write(ctx context.Context, resource string, token uint64, value string) (histories.Outcome, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	cur, err := l.Fenced.Read(ctx, resource)
	if err != nil {
		return 0, err
	}
	if !cur.Found || token > cur.Token {
		l.accepted++
		if l.accepted%l.every == 0 {
			return histories.Accepted, nil // acknowledged, never stored
		}
	}
	return l.Fenced.Write(ctx, resource, token, value)
}

// TestAcknowledgedWritesFindsALosingReceiver: a receiver that loses one
// accepted write in 50 (or in 200) fails acknowledged-writes, naming the
// write and the read; the correct one passes it.
func TestAcknowledgedWritesFindsALosingReceiver(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		every int
		want  Result
	}{
		{"correct", 0, Pass},
		{"loses 1 in 50", 50, Fail},
		{"loses 1 in 200", 200, Fail},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var rows []Row
			if tc.every == 0 {
				rows = battery(t, memory.NewFenced(), options(model.Strict, false))
			} else {
				rows = battery(t, &losingTarget{Fenced: memory.NewFenced(), every: tc.every}, options(model.Strict, false))
			}
			var row *Row
			for i := range rows {
				if rows[i].Scenario == "acknowledged-writes" {
					row = &rows[i]
				}
			}
			require.NotNil(t, row)
			t.Logf("%s: %s | %s", row.Result, row.Expected, row.Observed)
			assert.Equal(t, tc.want, row.Result)
			assert.Contains(t, row.Expected, "400 writes (8 resources × 50, increasing tokens) each accepted and read back at once")
			if tc.want == Fail {
				assert.Regexp(t, `^\d+ acknowledged writes lost, 0 rejected, of 400; first: verify-t-acknowledged-writes-\d+: `+
					`write \d+ of 50 \(token \d+, "ack-\d+"\) accepted, then read( "ack-\d+"@\d+|: never written): the acknowledged write was lost$`, row.Observed)
			}
		})
	}
}

// TestAcknowledgedWritesJudge: a loss or a rejection fails; unknown
// outcomes hide no acknowledged write, so a few pass, saying so, and too
// many skip the row with the reason rather than pass it.
func TestAcknowledgedWritesJudge(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		res      ackResult
		want     Result
		observed string
	}{
		{"all checked", ackResult{checked: 400}, Pass, "400 of 400 accepted, each read back"},
		{"a few unknown", ackResult{checked: 390, unknown: 10, firstUnknown: "r: write 3"}, Pass,
			"390 of 400 accepted, each read back (10 outcomes unknown, first: r: write 3)"},
		{"too many unknown", ackResult{checked: 359, unknown: 41, firstUnknown: "r: write 3"}, Skip,
			"skipped: only 359 of 400 writes acknowledged and read back (41 outcomes unknown, first: r: write 3), too few to find a loss of 1 in 50"},
		{"one lost among unknowns", ackResult{checked: 10, lost: 1, unknown: 389, first: "r: write 7"}, Fail,
			"1 acknowledged writes lost, 0 rejected, of 400; first: r: write 7"},
		{"one rejected", ackResult{checked: 399, rejected: 1, first: "r: write 2"}, Fail,
			"0 acknowledged writes lost, 1 rejected, of 400; first: r: write 2"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			observed, got := tc.res.judge()
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.observed, observed)
		})
	}
}
