package judge

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/internal/testsupport/histgen"
)

// TestMeterAgreesWithMeasure: check --follow states the coverage of a
// history it judged as it was written, and a user relies on it being the
// coverage fencecheck check states of the same file once written: on
// random histories (corrupted nine times in ten: stale writes accepted,
// rejections, unknown and failed outcomes), the meter counts what
// measure counts, field for field, but for the fields it says it does
// not measure.
func TestMeterAgreesWithMeasure(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(0x6d65, 0x7465))
	cases := histgen.CaseCount(0, 3000, 400, testing.Short())
	stale, afterCrash := 0, 0
	for c := range cases {
		cfg := histgen.Small(r)
		cfg.Ops *= 1 + r.IntN(4)
		ops := histgen.Generate(r, cfg)
		if r.IntN(10) != 0 {
			histgen.Corrupt(r, ops, 1+r.IntN(3))
		}
		events := withCrashes(r, histgen.Events(ops))
		h, err := histories.Pair(events)
		if err != nil {
			continue // a corruption the format refuses
		}
		want, _ := measure(h, nil)
		m := newMeter(nil)
		f := histories.NewFollower(meterSink{m})
		for i := range events {
			require.NoError(t, f.Add(&events[i]))
		}
		f.Finish()
		got := m.cov
		require.Equal(t, unmeasured, got.Unmeasured)
		got.Unmeasured = nil
		got.EqualTokenRepeats, got.EqualTokenAccepted, got.OldTokenFirst = want.EqualTokenRepeats, want.EqualTokenAccepted, want.OldTokenFirst
		if !assert.Equal(t, want, got, "case %d:\n%s", c, histgen.Describe(h.Expand(nil))) {
			return
		}
		stale += want.StaleWrites
		afterCrash += want.StaleAfterCrash
	}
	assert.Positive(t, stale, "the cases hold stale writes")
	assert.Positive(t, afterCrash, "the cases hold stale writes after a crash")
}

// withCrashes puts up to three crashes of the receiver among events, each
// at the time of the event before it (so that a write may be invoked at
// the very instant of a crash), renumbering them.
func withCrashes(r *rand.Rand, events []histories.Event) []histories.Event {
	crash := histories.Event{Process: -1, Actor: histories.ActorNemesis, F: histories.FCrash, Fault: "kill"}
	for range r.IntN(4) {
		events = histgen.Insert(events, r.IntN(len(events)+1), crash)
	}
	return events
}

// meterSink feeds a meter alone.
type meterSink struct{ m *meter }

func (s meterSink) Invoked(op *histories.Operation)   { s.m.invoked(op) }
func (s meterSink) Completed(op *histories.Operation) { s.m.completed(op) }
func (s meterSink) Other(e *histories.Event)          { s.m.other(e) }

// TestStaleAtTheSameInstant: a write invoked at the very instant a
// higher token's acceptance returned is not stale (it was not sent
// after the newer write had been accepted); one invoked later is. The
// whole-history measure and the meter agree on the tie.
func TestStaleAtTheSameInstant(t *testing.T) {
	t.Parallel()
	w := func(i int64, time int64, p int, typ histories.Type, tok uint64, out histories.Outcome) histories.Event {
		e := histories.Event{Index: i, Time: time, Process: p, Type: typ, F: histories.FWrite, Resource: "r", Token: tok, HasToken: true}
		if typ == histories.TypeInvoke {
			e.Value, e.HasValue = fmt.Sprint("v", tok, "-", i), true
		} else {
			e.Outcome = out
		}
		return e
	}
	for _, tc := range []struct {
		name  string
		at    int64
		stale int
	}{{"the same instant", 10, 0}, {"a moment later", 11, 1}} {
		events := []histories.Event{
			w(1, 0, 0, histories.TypeInvoke, 2, histories.OutcomeNone), w(2, 10, 0, histories.TypeOK, 2, histories.Accepted),
			w(3, tc.at, 1, histories.TypeInvoke, 1, histories.OutcomeNone), w(4, tc.at+5, 1, histories.TypeOK, 1, histories.Rejected),
		}
		h, err := histories.Pair(events)
		require.NoError(t, err)
		whole, _ := measure(h, nil)
		m := newMeter(nil)
		f := histories.NewFollower(meterSink{m})
		for i := range events {
			require.NoError(t, f.Add(&events[i]))
		}
		f.Finish()
		assert.Equal(t, tc.stale, whole.StaleWrites, tc.name)
		assert.Equal(t, tc.stale, m.cov.StaleWrites, tc.name)
	}
}
