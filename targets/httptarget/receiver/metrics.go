package receiver

import (
	"hash/maphash"
	"maps"
	"net/http"
	"strconv"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// MetricsNamespace prefixes every metric of the receiver.
const MetricsNamespace = "fencecheck_receiver"

// Reasons a write was rejected, the label of the rejected counter: how
// its token compares, as integers, with the token the resource holds
// afterwards (the one the 409 answer carries).
const (
	RejectedStale = "stale" // a lower token
	RejectedEqual = "equal" // the same token, refused under the strict rule
	// RejectedNewer is a higher token refused: only a defective receiver
	// does that (float-tokens above 2^53, string-tokens: "10" after "9").
	RejectedNewer = "newer"
)

// metrics are what the receiver answered, for Prometheus at /metrics, on
// a registry of the handler's own (never the global default registry:
// two handlers in one process, as in tests, count apart).
//
// They count answers, not correctness: under a --bug mode they count
// what the defective receiver answered, so the accepted and rejected
// counts equal the accepted and rejected writes of a history recorded
// against it, whatever it got wrong (a lose-acknowledged write answered
// 204 is accepted here, though it was never stored). Only a write whose
// answer never reached the client (a dropped response, a client that
// timed out) makes the two differ.
type metrics struct {
	registry  *prometheus.Registry
	accepted  prometheus.Counter
	rejected  map[string]prometheus.Counter // by reason
	malformed prometheus.Counter
	failed    prometheus.Counter
	highest   *highestTokens
}

func newMetrics(labelled int) *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		rejected: make(map[string]prometheus.Counter),
		highest:  newHighestTokens(labelled),
	}
	m.accepted = prometheus.NewCounter(prometheus.CounterOpts{Namespace: MetricsNamespace, Name: "writes_accepted_total",
		Help: "Writes answered 204: applied (or, under a --bug mode, answered as applied)."})
	rejected := prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: MetricsNamespace, Name: "writes_rejected_total",
		Help: "Writes answered 409, by how their token compares with the resource's: stale (lower), equal (the same, refused under the strict rule), newer (higher: only a defective receiver refuses one)."},
		[]string{"reason"})
	for _, r := range []string{RejectedStale, RejectedEqual, RejectedNewer} {
		m.rejected[r] = rejected.WithLabelValues(r)
	}
	m.malformed = prometheus.NewCounter(prometheus.CounterOpts{Namespace: MetricsNamespace, Name: "requests_malformed_total",
		Help: "Requests answered 400 or 413, before any comparison: a bad resource name, a missing or malformed Fencing-Token, an unreadable or too large body."})
	m.failed = prometheus.NewCounter(prometheus.CounterOpts{Namespace: MetricsNamespace, Name: "store_errors_total",
		Help: "Requests answered 500 because the store failed."})
	m.registry.MustRegister(m.accepted, rejected, m.malformed, m.failed, m.highest)
	return m
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
}

// refuse answers a request the receiver cannot act on (400, 413) and
// counts it.
func (m *metrics) refuse(w http.ResponseWriter, msg string, code int) {
	m.malformed.Inc()
	http.Error(w, msg, code)
}

// answered counts a write the store decided: applied, or refused with
// current the token the resource holds.
func (m *metrics) answered(resource string, token, current uint64, applied bool) {
	switch {
	case applied:
		m.accepted.Inc()
		m.highest.accepted(resource, token)
	case token < current:
		m.rejected[RejectedStale].Inc()
	case token == current:
		m.rejected[RejectedEqual].Inc()
	default:
		m.rejected[RejectedNewer].Inc()
	}
}

// highestTokens is the gauge of the highest token accepted on each
// resource, labelled by resource name for the first few resources only.
//
// A label per resource would make the number of series grow with the
// resources a run uses (thousands with --resources, and every run names
// fresh ones): each series costs the scraping Prometheus memory for as
// long as it keeps it, and a dashboard of a thousand lines shows nothing.
// So the first `limit` resources with an accepted write are labelled,
// and the others only counted, in fencecheck_receiver_unlabelled_resources.
// To count each once it keeps a 64-bit hash of their names: 8 bytes and
// a map entry per resource, a collision (one in 2^64) counting two as one.
type highestTokens struct {
	mu         sync.Mutex
	limit      int
	labelled   map[string]uint64
	unlabelled map[uint64]struct{}
	seed       maphash.Seed

	token, others *prometheus.Desc
}

func newHighestTokens(limit int) *highestTokens {
	return &highestTokens{
		limit:      limit,
		labelled:   make(map[string]uint64),
		unlabelled: make(map[uint64]struct{}),
		seed:       maphash.MakeSeed(),
		token: prometheus.NewDesc(MetricsNamespace+"_highest_accepted_token",
			"The highest token accepted on the resource, for the first "+strconv.Itoa(limit)+" resources with an accepted write (the receiver's metrics-resources limit). A float64: above 2^53 the value is rounded, so read exact tokens from the receiver, not from here.",
			[]string{"resource"}, nil),
		others: prometheus.NewDesc(MetricsNamespace+"_unlabelled_resources",
			"Resources with an accepted write that fencecheck_receiver_highest_accepted_token does not label: it labels at most "+strconv.Itoa(limit)+", to bound the number of series.",
			nil, nil),
	}
}

func (h *highestTokens) accepted(resource string, token uint64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if cur, ok := h.labelled[resource]; ok || len(h.labelled) < h.limit {
		h.labelled[resource] = max(cur, token)
		return
	}
	h.unlabelled[maphash.String(h.seed, resource)] = struct{}{}
}

// Describe implements prometheus.Collector.
func (h *highestTokens) Describe(ch chan<- *prometheus.Desc) {
	ch <- h.token
	ch <- h.others
}

// Collect implements prometheus.Collector. It copies under the lock and
// sends after, so that a slow scrape does not hold up writes. Names are
// valid UTF-8 (checkResource), as a label value must be.
func (h *highestTokens) Collect(ch chan<- prometheus.Metric) {
	h.mu.Lock()
	tokens := maps.Clone(h.labelled)
	others := len(h.unlabelled)
	h.mu.Unlock()
	for res, token := range tokens {
		ch <- prometheus.MustNewConstMetric(h.token, prometheus.GaugeValue, float64(token), res)
	}
	ch <- prometheus.MustNewConstMetric(h.others, prometheus.GaugeValue, float64(others))
}
