package check_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/check"
	"github.com/fencecheck/fencecheck/explain"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/internal/testsupport/histgen"
	"github.com/fencecheck/fencecheck/model"
)

// streamed judges events with a Stream fed by a Follower, with Detect
// after every event when eager (the most a caller can call it): the
// result, the violations in the order found, and the largest number of
// operations the stream held.
func streamed(t *testing.T, events []histories.Event, so check.StreamOptions, eager bool) (check.Result, []check.StreamViolation, []check.StreamViolation, int) {
	t.Helper()
	var order []check.StreamViolation
	s := check.NewStream(context.Background(), so, func(v check.StreamViolation) { order = append(order, v) })
	f := histories.NewFollower(s)
	peak := 0
	for i := range events {
		require.NoError(t, f.Add(&events[i]))
		if eager {
			s.Detect()
		}
		peak = max(peak, s.Kept())
	}
	f.Finish()
	res, found, err := s.Finish()
	require.NoError(t, err)
	return res, found, order, peak
}

// TestStreamAgreesWithWholeCheck is the differential test of the stream
// stage: on random histories (histgen.Small, corrupted nine times in ten,
// as in TestFastDifferential, and longer ones), windows small enough that
// nearly every gap is a cut and no context, it reaches the verdict of a
// whole-history Check and finds the same resources violated, whether
// Detect runs after every event or never. The second part gives most
// resources a state before the run, stated anywhere before the
// resource's first write (statedLate): the state's event may come after
// operations it precedes, the one case where an operation begins before
// its event. It judges the fenced register alone, as porcupine would
// take long over the plain register's larger histories.
func TestStreamAgreesWithWholeCheck(t *testing.T) {
	tests := []struct {
		name        string
		stream      uint64
		full, short int
		statedLate  bool
	}{
		{"unwritten before the run", 0x5743, 3000, 500, false},
		{"states before the run stated late", 0x1a7e, 1500, 300, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cases := histgen.CaseCount(0, tt.full, tt.short, testing.Short())
			r := rand.New(rand.NewPCG(*diffSeed, tt.stream))
			for c := range cases {
				var cfg histgen.Config
				if c%4 == 0 {
					cfg = histgen.Bench(200+r.IntN(400), 1+r.IntN(3), 1+r.IntN(4), 0.2, r.IntN(2) == 0)
					cfg.Gap, cfg.Duration = int64(1+r.IntN(40)), int64(r.IntN(20))
				} else {
					cfg = histgen.Small(r)
					cfg.Ops *= 1 + r.IntN(4)
				}
				if tt.statedLate {
					cfg.Initial = 0.3 + 0.7*r.Float64()
				}
				ops := histgen.Generate(r, cfg)
				if r.IntN(10) != 0 {
					histgen.Corrupt(r, ops, 1+r.IntN(3))
				}
				events := statedLate(r, ops)
				h, err := histories.Pair(events)
				if err != nil {
					continue // a corruption the format refuses
				}
				opts := check.Options{Kind: model.KindFenced, Policy: policyFor(r, cfg)}
				if !tt.statedLate && c%4 != 0 && r.IntN(8) == 0 {
					opts.Kind = model.KindRegister // porcupine judges: small histories only
				}
				want, err := check.Check(context.Background(), h, opts)
				require.NoError(t, err)
				so := check.StreamOptions{Options: opts, Window: 1 + r.IntN(3), Context: r.IntN(2) * 8}
				for _, eager := range []bool{false, true} {
					got, _, _, _ := streamed(t, events, so, eager)
					if got.Verdict != want.Verdict || !slices.Equal(got.Blamed(), want.Blamed()) {
						t.Fatalf("case %d (eager %v, window %d, %s, %s): stream says %s on %v, whole check %s on %v\n%s",
							c, eager, so.Window, opts.Kind, opts.Policy, got.Verdict, got.Blamed(), want.Verdict, want.Blamed(), histgen.Describe(h.Expand(nil)))
					}
				}
			}
		})
	}
}

// TestStreamCounterexampleIsTheWholeChecks plants a stale read in
// histories generated as streams and asks that the stream report it
// with the whole-file check's explanation and minimal counterexample,
// from the default windows and context, while it holds a bounded part of
// the history.
func TestStreamCounterexampleIsTheWholeChecks(t *testing.T) {
	tests := []struct {
		resources, clients int
		acceptEqual        bool
	}{
		{1, 2, false}, {1, 3, true}, {5, 5, false}, {50, 50, false}, {50, 50, true},
	}
	for _, tt := range tests {
		for seed := range uint64(histgen.CaseCount(0, 3, 1, testing.Short())) {
			t.Run(fmt.Sprintf("%d resources %d clients accept-equal %v seed %d", tt.resources, tt.clients, tt.acceptEqual, seed), func(t *testing.T) {
				cfg := histgen.Bench(60000, tt.resources, tt.clients, 0.1, tt.acceptEqual)
				var events []histories.Event
				planted, err := histgen.Stream(rand.New(rand.NewPCG(seed, 7)), cfg, 45000, func(e *histories.Event) error {
					events = append(events, *e)
					return nil
				})
				require.NoError(t, err)
				require.GreaterOrEqual(t, planted, 0, "no stale read planted")
				policy := model.Strict
				if tt.acceptEqual {
					policy = model.AcceptEqual
				}
				opts := check.Options{Kind: model.KindFenced, Policy: policy}
				h, err := histories.Pair(events)
				require.NoError(t, err)
				whole, err := check.Check(context.Background(), h, opts)
				require.NoError(t, err)
				require.Equal(t, check.Violated, whole.Verdict)
				ops := h.Expand(nil)
				wantEx := explain.Explain(ops, whole, opts)
				wantMin, ok, err := explain.Shrink(context.Background(), ops, h.Others, wantEx.Violations[wantEx.First()], opts, explain.DefaultShrinkOptions())
				require.NoError(t, err)
				require.True(t, ok)

				so := check.DefaultStreamOptions()
				so.Options = opts
				got, found, _, peak := streamed(t, events, so, false)
				require.Equal(t, check.Violated, got.Verdict)
				require.Len(t, found, 1)
				v := found[0]
				gotEx := explain.Explain(v.Ops, v.Result, opts)
				assert.Equal(t, wantEx.Violations[wantEx.First()], gotEx.Violations[0], "explanation")
				gotMin, ok, err := explain.Shrink(context.Background(), v.Ops, nil, gotEx.Violations[0], opts, explain.DefaultShrinkOptions())
				require.NoError(t, err)
				require.True(t, ok)
				assert.Equal(t, wantMin.OpIDs, gotMin.OpIDs, "minimal counterexample")
				assert.Equal(t, wantMin.Violation, gotMin.Violation, "minimal counterexample's account")
				assert.Contains(t, wantMin.OpIDs, planted)
				t.Logf("held at most %d of %d operations", peak, len(h.Ops))
			})
		}
	}
}

// statedLate is histgen.Events with each state before the run (an
// Initial operation, which Events cannot write) stated by an initial
// event at a random point before its resource's first write: right at
// the start, after reads of the resource, as the harness states what its
// observing read found, or after other operations too, as the format
// allows. Without states before the run it is histgen.Events, and draws
// nothing from r.
func statedLate(r *rand.Rand, ops []histories.Operation) []histories.Event {
	var initial, rest []histories.Operation
	for _, op := range ops {
		if op.Initial {
			initial = append(initial, op)
		} else {
			rest = append(rest, op)
		}
	}
	events := histgen.Events(rest)
	for _, op := range initial {
		first := slices.IndexFunc(events, func(e histories.Event) bool { return e.Resource == op.Resource && e.F == histories.FWrite })
		if first < 0 {
			first = len(events)
		}
		e, _ := op.Events()
		events = histgen.Insert(events, r.IntN(first+1), e)
	}
	return events
}

// TestStreamStateStatedAfterReads pins the state before the run stated
// after reads of its resource, as the harness states what its observing
// read found, and as a history may state it later still: the state is
// an accepted write before every operation, so a window cut before it
// came, or reads judged early against the unwritten state, would judge
// the reads against the wrong state. The stream must reach the whole
// check's verdict with windows of one operation and the default, and
// Detect after every event must report nothing the whole check does not.
func TestStreamStateStatedAfterReads(t *testing.T) {
	invoke := func(p int, at int64) histories.Event {
		return histories.Event{Time: at, Process: p, Type: histories.TypeInvoke, F: histories.FRead, Resource: "r"}
	}
	read := func(p int, v string, tok uint64, at int64) histories.Event {
		return histories.Event{Time: at, Process: p, Type: histories.TypeOK, F: histories.FRead, Resource: "r",
			Value: v, HasValue: v != "", Token: tok, HasToken: tok > 0}
	}
	stated := func(tok uint64, v string, at int64) histories.Event {
		e := histories.InitialState("r", v, tok, "")
		e.Time = at
		return e
	}
	tests := []struct {
		name   string
		events []histories.Event
		want   check.Verdict
	}{
		{"reads of the state stated after them", []histories.Event{
			invoke(1, 1), read(1, "v", 5, 2), invoke(1, 3), read(1, "v", 5, 4), stated(5, "v", 5),
		}, check.Held},
		{"a read of nothing before the state stated after it", []histories.Event{
			invoke(1, 1), read(1, "", 0, 2), invoke(1, 3), read(1, "v", 5, 4), stated(5, "v", 5),
		}, check.Violated},
	}
	for _, tt := range tests {
		for i := range tt.events {
			tt.events[i].Index = histories.FirstIndex + int64(i)
		}
		h, err := histories.Pair(tt.events)
		require.NoError(t, err)
		opts := check.Options{Kind: model.KindFenced, Policy: model.Strict}
		want, err := check.Check(context.Background(), h, opts)
		require.NoError(t, err)
		require.Equal(t, tt.want, want.Verdict, "the whole check")
		for _, window := range []int{1, check.DefaultStreamOptions().Window} {
			for _, eager := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s window %d eager %v", tt.name, window, eager), func(t *testing.T) {
					got, _, order, _ := streamed(t, tt.events, check.StreamOptions{Options: opts, Window: window}, eager)
					for _, v := range order {
						assert.Contains(t, want.Blamed(), v.Resource, "found after %d events", v.Events)
					}
					assert.Equal(t, want.Verdict, got.Verdict)
					assert.Equal(t, want.Blamed(), got.Blamed())
				})
			}
		}
	}
}
