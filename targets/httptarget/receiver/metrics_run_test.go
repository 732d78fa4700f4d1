package receiver_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/harness"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/internal/testsupport/scrape"
	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/runstore"
	"github.com/fencecheck/fencecheck/targets/httptarget"
	"github.com/fencecheck/fencecheck/targets/httptarget/receiver"
)

// TestMetricsEqualTheHistory: after a run of the harness against the
// reference receiver, correct and defective, the receiver's accepted and
// rejected counters equal the accepted and rejected writes of the history
// file: the receiver counts what it answered, and the history records
// what the workers were answered. accept-equal is found out (a repeated
// token accepted under the strict rule), and its counts still agree.
func TestMetricsEqualTheHistory(t *testing.T) {
	t.Parallel()
	for _, bug := range []receiver.Bug{receiver.NoBug, receiver.CheckThenSet, receiver.AcceptEqual} {
		t.Run(bug.String(), func(t *testing.T) {
			t.Parallel()
			o := receiver.DefaultOptions()
			o.Bug = bug
			h, err := receiver.NewHandler(receiver.NewMemory(), o)
			require.NoError(t, err)
			srv := httptest.NewServer(h)
			t.Cleanup(srv.Close)
			to := httptarget.DefaultOptions()
			to.Timeout = 0 // an answer that came too late would be counted by the receiver alone
			tgt, err := httptarget.New(srv.URL, to)
			require.NoError(t, err)

			cfg := harness.DefaultConfig()
			cfg.Target.Receiver, cfg.Target.Name, cfg.Store.Dir = tgt, "http://reference", schema.TempDir(t)
			cfg.Workload.Workers, cfg.Workload.Resources, cfg.Workload.Duration, cfg.Workload.Ops = 4, 2, 0, 300
			cfg.SetLeaseTTL(50 * time.Millisecond)
			cfg.Workload.OpTimeout = 5 * time.Minute // no unknown outcome, however loaded the machine
			cfg.Store.NoReport, cfg.Gates.MinStale = true, 0
			res, err := harness.Run(context.Background(), cfg)
			require.NoError(t, err)

			hist, err := histories.Read(t.Context(), histories.Source{Path: filepath.Join(res.Dir, runstore.History)})
			require.NoError(t, err)
			c := hist.Count()
			require.Zero(t, c.UnknownWrites+c.FailedWrites, "every write was answered")
			require.Positive(t, c.Accepted)
			require.Positive(t, c.Rejected, "repeated tokens and stale writes are rejected")
			if bug == receiver.AcceptEqual {
				require.Equal(t, judge.Violated, res.Verdict, "a repeated token accepted")
			}

			fams, err := scrape.Get(context.Background(), http.DefaultClient, srv.URL+"/metrics")
			require.NoError(t, err)
			assert.Equal(t, float64(c.Accepted), fams.Sum("fencecheck_receiver_writes_accepted_total"), "accepted")
			assert.Equal(t, float64(c.Rejected), fams.Sum("fencecheck_receiver_writes_rejected_total"), "rejected")
			assert.Zero(t, fams.Sum("fencecheck_receiver_requests_malformed_total"))
			t.Logf("%s: history accepted %d rejected %d (verdict %s); metrics accepted %v rejected %v (stale %v, equal %v)",
				bug, c.Accepted, c.Rejected, res.Verdict, fams.Sum("fencecheck_receiver_writes_accepted_total"),
				fams.Sum("fencecheck_receiver_writes_rejected_total"),
				fams.Sum("fencecheck_receiver_writes_rejected_total", "reason", "stale"),
				fams.Sum("fencecheck_receiver_writes_rejected_total", "reason", "equal"))
		})
	}
}
