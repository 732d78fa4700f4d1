package receiver

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/internal/testsupport/scrape"
)

// scrapeHandler asks h for /metrics, as Prometheus would, and parses the
// answer with Prometheus's parser.
func scrapeHandler(t *testing.T, h http.Handler) scrape.Families {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	fams, err := scrape.Parse(rec.Body)
	require.NoError(t, err)
	return fams
}

// TestMetricsCountWhatTheReceiverAnswered: each answer is counted once,
// by what the receiver answered, in every mode: a defective receiver's
// wrong answers are counted as the answers they are.
func TestMetricsCountWhatTheReceiverAnswered(t *testing.T) {
	t.Parallel()
	type step struct{ resource, token string }
	cases := []struct {
		bug   Bug
		steps []step
		// accepted, rejected stale, equal, newer, malformed
		want    [5]float64
		highest float64 // on "r"
	}{
		{NoBug, []step{{"r", "42"}, {"r", "41"}, {"r", "42"}, {"r", "43"}, {"r", "abc"}, {"r", ""}}, [5]float64{2, 1, 1, 0, 2}, 43},
		{AcceptEqual, []step{{"r", "42"}, {"r", "42"}, {"r", "41"}}, [5]float64{2, 1, 0, 0, 0}, 42},
		{Unfenced, []step{{"r", "42"}, {"r", "41"}}, [5]float64{2, 0, 0, 0, 0}, 42},
		{StringTokens, []step{{"r", "9"}, {"r", "10"}, {"r", "8"}}, [5]float64{1, 1, 0, 1, 0}, 9},
		{CheckThenSet, []step{{"r", "5"}, {"r", "5"}, {"r", "4"}, {"%01", "6"}}, [5]float64{1, 1, 1, 0, 1}, 5},
	}
	for _, tc := range cases {
		t.Run(tc.bug.String(), func(t *testing.T) {
			t.Parallel()
			o := bugOptions(tc.bug)
			o.Window = 0
			h := newHandler(t, NewMemory(), o)
			for _, s := range tc.steps {
				put(h, s.resource, s.token, "v")
			}
			fams := scrapeHandler(t, h)
			rejected := func(reason string) float64 {
				return fams.Sum("fencecheck_receiver_writes_rejected_total", "reason", reason)
			}
			got := [5]float64{fams.Sum("fencecheck_receiver_writes_accepted_total"), rejected(RejectedStale), rejected(RejectedEqual),
				rejected(RejectedNewer), fams.Sum("fencecheck_receiver_requests_malformed_total")}
			assert.Equal(t, tc.want, got, "accepted, stale, equal, newer, malformed")
			highest, ok := fams.Value("fencecheck_receiver_highest_accepted_token", "resource", "r")
			require.True(t, ok)
			assert.Equal(t, tc.highest, highest)
		})
	}
}

// TestMetricsLabelAtMostNResources: the highest-token gauge labels the
// first N resources with an accepted write, keeps their highest token
// current, and only counts the others, each once.
func TestMetricsLabelAtMostNResources(t *testing.T) {
	t.Parallel()
	cases := []struct {
		limit      int
		labelled   []string
		unlabelled float64
	}{
		{0, nil, 4},
		{2, []string{"r0", "r1"}, 2},
		{100, []string{"r0", "r1", "r2", "r3"}, 0},
	}
	for _, tc := range cases {
		t.Run("", func(t *testing.T) {
			t.Parallel()
			o := DefaultOptions()
			o.MetricsResources = tc.limit
			h := newHandler(t, NewMemory(), o)
			for _, w := range []struct{ resource, token string }{
				{"r0", "1"}, {"r1", "1"}, {"r2", "1"}, {"r3", "1"}, {"r0", "7"}, {"r3", "2"}, {"r2", "1"},
			} {
				put(h, w.resource, w.token, "v")
			}
			fams := scrapeHandler(t, h)
			assert.Equal(t, len(tc.labelled), fams.Count("fencecheck_receiver_highest_accepted_token"))
			for _, res := range tc.labelled {
				want := map[string]float64{"r0": 7, "r3": 2}[res]
				got, ok := fams.Value("fencecheck_receiver_highest_accepted_token", "resource", res)
				assert.True(t, ok, res)
				assert.Equal(t, max(want, 1), got, res)
			}
			unlabelled, ok := fams.Value("fencecheck_receiver_unlabelled_resources")
			require.True(t, ok)
			assert.Equal(t, tc.unlabelled, unlabelled)
		})
	}
}

// TestMetricsFollowPrometheusConventions: names, units, _total suffixes
// and help texts as Prometheus's linter wants them.
func TestMetricsFollowPrometheusConventions(t *testing.T) {
	t.Parallel()
	h := newHandler(t, NewMemory(), DefaultOptions())
	put(h, "r", "1", "v")
	problems, err := testutil.GatherAndLint(h.metrics.registry)
	require.NoError(t, err)
	assert.Empty(t, problems)
	for name, fam := range scrapeHandler(t, h) {
		assert.NotEmpty(t, fam.GetHelp(), name)
	}
}

func TestHandlerRefusesNegativeMetricsResources(t *testing.T) {
	t.Parallel()
	o := DefaultOptions()
	o.MetricsResources = -1
	_, err := NewHandler(NewMemory(), o)
	require.ErrorContains(t, err, "MetricsResources -1 is negative")
}
