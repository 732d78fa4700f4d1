package runmetrics

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/internal/testsupport/scrape"
)

func scrapeMetrics(t *testing.T, m *Metrics) scrape.Families {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	require.Equal(t, http.StatusOK, rec.Code)
	fams, err := scrape.Parse(rec.Body)
	require.NoError(t, err)
	return fams
}

func invoke(p int, f, res string, token uint64) histories.Event {
	return histories.Event{Process: p, Type: histories.TypeInvoke, F: f, Resource: res, Token: token, HasToken: f == histories.FWrite}
}

func done(p int, typ histories.Type, f, res string, o histories.Outcome) histories.Event {
	return histories.Event{Process: p, Type: typ, F: f, Resource: res, Outcome: o}
}

func nemesis(f, fault string) histories.Event {
	return histories.Event{Process: -1, Actor: histories.ActorNemesis, F: f, Fault: fault}
}

// TestObserveCountsAHistory feeds a short history by hand: the outcomes,
// the stale writes as coverage defines them (below a token whose
// acceptance was recorded before the write was sent) and the faults.
func TestObserveCountsAHistory(t *testing.T) {
	t.Parallel()
	const w, r = histories.FWrite, histories.FRead
	events := []histories.Event{
		nemesis(histories.FStart, "pause"),
		invoke(0, w, "a", 5),
		invoke(1, w, "a", 4), // sent before 5's acceptance is recorded: not stale
		done(0, histories.TypeOK, w, "a", histories.Accepted),
		done(1, histories.TypeOK, w, "a", histories.Rejected),
		nemesis(histories.FBegin, "pause"),
		invoke(2, w, "a", 3), // stale, accepted
		done(2, histories.TypeOK, w, "a", histories.Accepted),
		invoke(3, w, "a", 2), // stale, unknown
		done(3, histories.TypeInfo, w, "a", 0),
		invoke(4, w, "a", 1), // stale, but failed: coverage leaves it out
		done(4, histories.TypeFail, w, "a", 0),
		invoke(5, w, "b", 1), // another resource: not stale
		done(5, histories.TypeOK, w, "b", histories.Accepted),
		invoke(6, r, "a", 0),
		done(6, histories.TypeOK, r, "a", 0),
		invoke(7, w, "a", 5), // equal, not stale
		{Process: -1, Actor: histories.ActorLease, F: histories.FAcquire, Resource: "a", Token: 6},
		histories.InitialState("c", "c-0", 9, ""),
		nemesis(histories.FBegin, "pause"),
		nemesis(histories.FEnd, "pause"),
	}
	m := New([]string{"pause", "delay"})
	for i := range events {
		m.Observe(events[i])
	}
	fams := scrapeMetrics(t, m)
	ops := func(outcome string) float64 { return fams.Sum("fencecheck_run_operations_total", "outcome", outcome) }
	stale := func(outcome string) float64 { return fams.Sum("fencecheck_run_stale_writes_total", "outcome", outcome) }
	assert.Equal(t, 8.0, fams.Sum("fencecheck_run_operations_invoked_total"))
	assert.Equal(t, []float64{3, 1, 1, 1, 1}, []float64{ops(OutcomeAccepted), ops(OutcomeRejected), ops(OutcomeOK), ops(OutcomeUnknown), ops(OutcomeFailed)},
		"accepted, rejected, ok, unknown, failed")
	assert.Equal(t, []float64{1, 0, 1}, []float64{stale(OutcomeAccepted), stale(OutcomeRejected), stale(OutcomeUnknown)}, "stale accepted, rejected, unknown")
	fault := func(name, fault string) float64 {
		v, ok := fams.Value(name, "fault", fault)
		require.True(t, ok, "%s{fault=%q} is served", name, fault)
		return v
	}
	assert.Equal(t, 1.0, fault("fencecheck_run_fault_active", "pause"))
	assert.Equal(t, 1.0, fault("fencecheck_run_fault_actions_in_progress", "pause"))
	assert.Equal(t, 2.0, fault("fencecheck_run_fault_actions_total", "pause"))
	assert.Zero(t, fault("fencecheck_run_fault_active", "delay"), "a fault that never acted is served at 0")

	stop := nemesis(histories.FStop, "pause")
	m.Observe(stop)
	assert.Zero(t, testutil.ToFloat64(m.active.WithLabelValues("pause")))
}

func TestMetricsFollowPrometheusConventions(t *testing.T) {
	t.Parallel()
	m := New([]string{"pause"})
	problems, err := testutil.GatherAndLint(m.registry)
	require.NoError(t, err)
	assert.Empty(t, problems)
}

func TestStartRefusesARemoteAddress(t *testing.T) {
	t.Parallel()
	o := DefaultServerOptions()
	o.Listen = "0.0.0.0:0"
	_, err := Start(New(nil), o)
	require.ErrorContains(t, err, "not loopback")
}

// BenchmarkObserve is the cost Metrics adds to recording one event,
// under the recorder's lock: a write's invocation and its completion.
func BenchmarkObserve(b *testing.B) {
	m := New([]string{"pause"})
	inv := invoke(0, histories.FWrite, "run-r0", 1)
	ok := done(0, histories.TypeOK, histories.FWrite, "run-r0", histories.Accepted)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		inv.Token = uint64(i)
		m.Observe(inv)
		m.Observe(ok)
	}
}
