package verify

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/lease"
	"github.com/fencecheck/fencecheck/model"
	"github.com/fencecheck/fencecheck/targets"
	"github.com/fencecheck/fencecheck/targets/memory"
)

// deadline ends the battery's context at the nth call of a fake's
// method, an event rather than a timer.
type deadline struct {
	mu     sync.Mutex
	n      int
	cancel context.CancelFunc
}

// reached counts one call and reports whether it is the nth, whose
// context it has then ended.
func (d *deadline) reached() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.n--
	if d.n == 0 {
		d.cancel()
		return true
	}
	return false
}

// endsOnWrite is a target whose caller's time runs out at its nth write:
// the write comes back as a client's does when its context ends,
// unanswered.
type endsOnWrite struct {
	targets.Target
	deadline
}

func (e *endsOnWrite) Write(ctx context.Context, resource string, token uint64, value string) (histories.Outcome, error) {
	if e.reached() {
		return histories.OutcomeNone, ctx.Err()
	}
	return e.Target.Write(ctx, resource, token, value)
}

// TestABatteryWhoseTimeEndsJudgesNothingItCutShort: when the caller's
// deadline (an audit's budget) ends during a scenario, the unanswered
// write it leaves is the deadline's doing, not the receiver's: a correct
// receiver must not fail that scenario (which would make its audit
// VIOLATED), the row says it was not judged and what it had seen, the
// scenarios after are not run, and the battery is inconclusive. A
// failure a scenario saw before the deadline still stands.
func TestABatteryWhoseTimeEndsJudgesNothingItCutShort(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		receiver string
		write    int // the write during which the time ends
		verdict  judge.Verdict
	}{
		{"fenced", 1, judge.Inconclusive},
		{"fenced", 25, judge.Inconclusive},
		{"fenced", 400, judge.Inconclusive},
		{"unfenced", 400, judge.Violated}, // stale-after-newer failed long before
	} {
		t.Run(tc.receiver, func(t *testing.T) {
			t.Parallel()
			mem, err := memory.Open(tc.receiver)
			require.NoError(t, err)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			tgt := &endsOnWrite{Target: mem, deadline: deadline{n: tc.write, cancel: cancel}}
			rows, err := Run(ctx, tgt, options(model.Strict, false))
			require.NoError(t, err, "a deadline is not an error of the battery")
			require.Len(t, rows, len(scenarios))
			cut := ""
			for _, r := range rows {
				switch {
				case cut == "" && r.NotRun:
					cut = r.Scenario
					assert.Equal(t, Skip, r.Result)
					assert.True(t, strings.HasPrefix(r.Observed, "not judged: the battery's time ended during it (context canceled); it had seen: "), r.Observed)
				case cut != "":
					assert.True(t, r.NotRun, r.Scenario)
					assert.Equal(t, "not run: the battery's time ended during "+cut+" (context canceled)", r.Observed)
				case tc.receiver == "fenced":
					assert.NotEqual(t, Fail, r.Result, "%s: %s", r.Scenario, r.Observed)
				}
			}
			require.NotEmpty(t, cut, "the row the time ended in says so")
			v, _, reason := Decide(rows, nil)
			assert.Equal(t, tc.verdict, v, reason)
			assert.Contains(t, reason, "not run: the battery's time ended during "+cut)
		})
	}
}

// endsOnGrant is an issuer whose caller's time runs out at its nth
// grant, which comes back as the context's error.
type endsOnGrant struct {
	lease.Service
	deadline
}

func (e *endsOnGrant) Acquire(ctx context.Context, resource string, worker int) (lease.Lease, error) {
	if e.reached() {
		return lease.Lease{}, ctx.Err()
	}
	return e.Service.Acquire(ctx, resource, worker)
}

// TestAnIssuerBatteryWhoseTimeEndsJudgesNothingItCutShort: the same for
// the issuer's battery: a grant the deadline refused is not the issuer's
// failure.
func TestAnIssuerBatteryWhoseTimeEndsJudgesNothingItCutShort(t *testing.T) {
	t.Parallel()
	svc, _ := localIssuer(t, 20*time.Millisecond)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rows, err := RunIssuer(ctx, &endsOnGrant{Service: svc, deadline: deadline{n: 3, cancel: cancel}}, issuerOptions(20*time.Millisecond))
	require.NoError(t, err)
	require.Len(t, rows, len(issuerScenarios))
	assert.True(t, rows[0].NotRun)
	assert.True(t, strings.HasPrefix(rows[0].Observed, "not judged: the battery's time ended during it (context canceled)"), rows[0].Observed)
	for _, r := range rows[1:] {
		assert.Equal(t, "not run: the battery's time ended during "+rows[0].Scenario+" (context canceled)", r.Observed)
	}
	v, _, reason := Decide(rows, nil)
	assert.Equal(t, judge.Inconclusive, v, reason)
}
