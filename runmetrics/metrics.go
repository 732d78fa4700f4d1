// Package runmetrics counts a run's events for Prometheus as they are
// recorded, so that a long run (a soak test) can be watched in Grafana
// while it goes on: `fencecheck run --metrics ADDR` serves them.
//
//	workers, lease, nemesis ──Record──> histories.Recorder ──Observe──> Metrics ──/metrics──> Prometheus
//
// It is an adapter on the histories.Observer seam: the harness knows
// nothing of Prometheus, and Metrics knows nothing of the harness. The
// counters are the history's own, counted one event at a time; after the
// last event they equal what History.Count and the run's coverage say
// of the history file (see the help texts for the one exception: an
// operation that never completed).
//
// The metrics are for watching a run, not for judging it: the verdict
// comes from checking the whole history afterwards.
package runmetrics

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/fencecheck/fencecheck/histories"
)

// Namespace prefixes every metric of a run.
const Namespace = "fencecheck_run"

// Outcome label values of the operations counter, in the words the
// history and its operations use.
const (
	OutcomeAccepted = "accepted" // a write the receiver applied
	OutcomeRejected = "rejected" // a write the receiver refused
	OutcomeOK       = "ok"       // a read that returned
	OutcomeUnknown  = "unknown"  // an info completion: no answer in time
	OutcomeFailed   = "failed"   // a fail completion: definitely no effect
)

// outcome indexes the counters by outcome, so that Observe looks none up
// by its label (BenchmarkObserve).
type outcome uint8

const (
	accepted outcome = iota
	rejected
	ok
	unknown
	failed
	outcomes
)

var outcomeNames = [outcomes]string{OutcomeAccepted, OutcomeRejected, OutcomeOK, OutcomeUnknown, OutcomeFailed}

// Metrics counts a run's events. Its Observe is a histories.Observer: it
// must be fed one event at a time, in index order, as a Recorder does.
// Scrapes (Handler) may come from any goroutine at any time: every value
// they read is a Prometheus counter or gauge, updated atomically.
type Metrics struct {
	registry *prometheus.Registry

	invoked    prometheus.Counter
	operations [outcomes]prometheus.Counter
	stale      [outcomes]prometheus.Counter // accepted, rejected and unknown only
	active     *prometheus.GaugeVec         // fault windows open
	inProgress *prometheus.GaugeVec         // fault actions begun and not ended
	actions    *prometheus.CounterVec       // fault actions begun

	// Observe's own state; only Observe touches it, one event at a
	// time, so it needs no lock.
	highest  map[string]*uint64 // resource → highest token of a recorded acceptance
	inFlight map[int]write      // process → its write not yet completed
}

// write is a write in flight, as its invocation recorded it.
type write struct {
	token uint64
	stale bool
}

// New returns the metrics of a run with the given faults, on a registry
// of its own (never Prometheus's global one: two runs in one process,
// as in tests, must not share counters). The faults' series exist from
// the start, at zero, so that a dashboard shows them before they act.
func New(faults []string) *Metrics {
	m := &Metrics{
		registry: prometheus.NewRegistry(),
		highest:  make(map[string]*uint64),
		inFlight: make(map[int]write),
	}
	m.invoked = prometheus.NewCounter(prometheus.CounterOpts{Namespace: Namespace, Name: "operations_invoked_total",
		Help: "Client operations (writes and reads) the workers invoked; minus the sum of fencecheck_run_operations_total, the operations in flight."})
	ops := prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "operations_total",
		Help: "Client operations that completed, by outcome: accepted and rejected writes, ok reads, unknown (no answer in time: the operation may still take effect) and failed (definitely no effect) operations of either kind. An operation that never completed (a run killed mid-call) is unknown in the history but not counted here."},
		[]string{"outcome"})
	for o, name := range outcomeNames {
		m.operations[o] = ops.WithLabelValues(name)
	}
	stale := prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "stale_writes_total",
		Help: "Stale writes the workers submitted, by outcome: writes sent with a token below the highest token the receiver had already accepted on the same resource, by a write whose acceptance was recorded before this write was sent (result.json's coverage.stale_writes). Counted when the write completes, failed ones left out; outcome accepted is a fencing violation."},
		[]string{"outcome"})
	for _, o := range []outcome{accepted, rejected, unknown} {
		m.stale[o] = stale.WithLabelValues(outcomeNames[o])
	}
	m.active = prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: Namespace, Name: "fault_active",
		Help: "1 while the fault's window is open (the schedule switched it on: a nemesis start event), 0 once it closed (stop)."},
		[]string{"fault"})
	m.inProgress = prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: Namespace, Name: "fault_actions_in_progress",
		Help: "The fault's actions that began and have not ended (nemesis begin minus end events): workers held, writes or requests delayed, receivers stopped. An action whose end is never recorded (a blackholed connection no peer closed) stays counted."},
		[]string{"fault"})
	m.actions = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "fault_actions_total",
		Help: "The fault's actions that began (nemesis begin events; result.json's coverage.fault_actions)."},
		[]string{"fault"})
	for _, f := range faults {
		m.active.WithLabelValues(f).Set(0)
		m.inProgress.WithLabelValues(f).Set(0)
		m.actions.WithLabelValues(f).Add(0)
	}
	m.registry.MustRegister(m.invoked, ops, stale, m.active, m.inProgress, m.actions)
	return m
}

// Handler serves the metrics in Prometheus's exposition formats.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
}

// Observe implements histories.Observer.
func (m *Metrics) Observe(ev histories.Event) {
	e := &ev
	switch {
	case e.Actor == histories.ActorNemesis:
		m.fault(e)
	case e.Actor != "":
	case e.Type == histories.TypeInvoke:
		m.invoke(e)
	default:
		m.complete(e)
	}
}

// invoke notes a write's token, and whether it is stale now: below a
// token whose acceptance is already recorded on its resource (the
// definition of harness's coverage, computed there from the whole
// history).
func (m *Metrics) invoke(e *histories.Event) {
	m.invoked.Inc()
	if e.F != histories.FWrite {
		return
	}
	w := write{token: e.Token}
	if h := m.highest[e.Resource]; h != nil {
		w.stale = e.Token < *h
	}
	m.inFlight[e.Process] = w
}

func (m *Metrics) complete(e *histories.Event) {
	isWrite := e.F == histories.FWrite
	var w write
	if isWrite {
		w = m.inFlight[e.Process]
		delete(m.inFlight, e.Process)
	}
	o := failed
	switch {
	case e.Type == histories.TypeInfo:
		o = unknown
	case e.Type != histories.TypeOK:
	case !isWrite:
		o = ok
	case e.Outcome == histories.Accepted:
		o = accepted
		m.raise(e.Resource, w.token)
	default:
		o = rejected // a write's ok without accepted, as histories pairs it
	}
	m.operations[o].Inc()
	if w.stale && o != failed {
		m.stale[o].Inc()
	}
}

// raise notes token as accepted on resource.
func (m *Metrics) raise(resource string, token uint64) {
	h := m.highest[resource]
	if h == nil {
		h = new(uint64)
		m.highest[resource] = h
	}
	*h = max(*h, token)
}

func (m *Metrics) fault(e *histories.Event) {
	switch e.F {
	case histories.FStart:
		m.active.WithLabelValues(e.Fault).Set(1)
	case histories.FStop:
		m.active.WithLabelValues(e.Fault).Set(0)
	case histories.FBegin, histories.FCrash:
		m.actions.WithLabelValues(e.Fault).Inc()
		m.inProgress.WithLabelValues(e.Fault).Inc()
	case histories.FEnd:
		m.inProgress.WithLabelValues(e.Fault).Dec()
	}
}
