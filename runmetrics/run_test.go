package runmetrics_test

import (
	"context"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/harness"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/internal/testsupport/scrape"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/runmetrics"
	"github.com/fencecheck/fencecheck/runstore"
	"github.com/fencecheck/fencecheck/targets"
	"github.com/fencecheck/fencecheck/targets/memory"
)

// seen is what the probe counted itself up to its scrape.
type seen struct {
	invoked, completed int
	pauseOn            bool
	pausing            int
}

// probe feeds the metrics and, once the pause fault's window is open, a
// pause is in progress and some operations completed, scrapes the
// server from inside the run: the run waits on the scrape, so what the
// scrape must show is exactly what the probe saw until then.
type probe struct {
	m      *runmetrics.Metrics
	url    string
	client *http.Client

	now     seen
	scraped bool
	at      seen
	during  scrape.Families
	err     error
}

func (p *probe) Observe(e histories.Event) {
	p.m.Observe(e)
	switch {
	case e.Actor == histories.ActorNemesis && e.Fault == "pause":
		switch e.F {
		case histories.FStart:
			p.now.pauseOn = true
		case histories.FStop:
			p.now.pauseOn = false
		case histories.FBegin:
			p.now.pausing++
		case histories.FEnd:
			p.now.pausing--
		}
	case e.Actor != "":
	case e.Type == histories.TypeInvoke:
		p.now.invoked++
	default:
		p.now.completed++
	}
	if !p.scraped && p.now.pauseOn && p.now.pausing > 0 && p.now.completed >= 20 {
		p.scraped, p.at = true, p.now
		p.during, p.err = scrape.Get(context.Background(), p.client, p.url)
	}
}

// TestServedMetricsFollowTheRun: `run --metrics` as a library. A scrape
// during the run shows the operations so far and the pause fault active;
// a scrape after it equals what the history file holds: History.Count
// of its operations, and the coverage's stale writes and fault actions.
func TestServedMetricsFollowTheRun(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		target func() targets.Target
	}{
		{"fenced", func() targets.Target { return memory.NewFenced() }},
		{"unfenced", func() targets.Target { return memory.NewUnfenced() }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := runmetrics.New([]string{"pause"})
			o := runmetrics.DefaultServerOptions()
			o.Listen = "127.0.0.1:0"
			srv, err := runmetrics.Start(m, o)
			require.NoError(t, err)
			url := "http://" + srv.Addr().String() + "/metrics"
			client := &http.Client{Timeout: time.Minute}
			p := &probe{m: m, url: url, client: client}

			cfg := harness.DefaultConfig()
			cfg.Target.Receiver, cfg.Target.Name, cfg.Store.Dir = tc.target(), "memory://"+tc.name, schema.TempDir(t)
			cfg.Runtime.Deterministic, cfg.Runtime.Seed = true, 1
			cfg.Workload.Workers, cfg.Workload.Resources, cfg.Workload.Duration, cfg.Workload.Ops = 4, 2, 0, 400
			cfg.Nemesis.Faults, cfg.Nemesis.Schedule = []nemesis.Fault{nemesis.NewPause()}, nemesis.Script{Steps: []nemesis.Step{{At: 0, Fault: "pause", On: true}}}
			cfg.Store.NoReport, cfg.Gates.MinStale, cfg.Gates.ShrinkTimeout = true, 0, 0
			cfg.Output.Observer = p
			res, err := harness.Run(context.Background(), cfg)
			require.NoError(t, err)

			require.True(t, p.scraped, "the pause fault acted while operations completed")
			require.NoError(t, p.err)
			assert.Equal(t, float64(p.at.invoked), p.during.Sum("fencecheck_run_operations_invoked_total"), "invoked during the run")
			assert.Equal(t, float64(p.at.completed), p.during.Sum("fencecheck_run_operations_total"), "completed during the run")
			active, _ := p.during.Value("fencecheck_run_fault_active", "fault", "pause")
			assert.Equal(t, 1.0, active, "pause active during the run")
			inProgress, _ := p.during.Value("fencecheck_run_fault_actions_in_progress", "fault", "pause")
			assert.Equal(t, float64(p.at.pausing), inProgress, "pauses in progress during the run")

			after, err := scrape.Get(context.Background(), client, url)
			require.NoError(t, err)
			hist, err := histories.Read(t.Context(), histories.Source{Path: filepath.Join(res.Dir, runstore.History)})
			require.NoError(t, err)
			c := hist.Count()
			ops := func(outcome string) float64 { return after.Sum("fencecheck_run_operations_total", "outcome", outcome) }
			assert.Equal(t, float64(c.Operations), after.Sum("fencecheck_run_operations_invoked_total"), "invoked")
			assert.Equal(t,
				[]int{c.Accepted, c.Rejected, c.Reads - c.UnknownReads - c.FailedReads, c.UnknownWrites + c.UnknownReads, c.FailedWrites + c.FailedReads},
				[]int{int(ops("accepted")), int(ops("rejected")), int(ops("ok")), int(ops("unknown")), int(ops("failed"))},
				"accepted, rejected, ok, unknown, failed")
			cov := res.Coverage
			stale := func(outcome string) int {
				return int(after.Sum("fencecheck_run_stale_writes_total", "outcome", outcome))
			}
			require.Positive(t, cov.StaleWrites, "the pauses made stale writes")
			assert.Equal(t, []int{cov.StaleWrites, cov.StaleAccepted, cov.StaleRejected, cov.StaleUnknown},
				[]int{int(after.Sum("fencecheck_run_stale_writes_total")), stale("accepted"), stale("rejected"), stale("unknown")},
				"stale writes: all, accepted, rejected, unknown")
			assert.Equal(t, float64(cov.FaultActions["pause"]), after.Sum("fencecheck_run_fault_actions_total", "fault", "pause"))
			assert.Zero(t, after.Sum("fencecheck_run_fault_active", "fault", "pause"), "the window closed at the run's end")
			assert.Zero(t, after.Sum("fencecheck_run_fault_actions_in_progress", "fault", "pause"))
			t.Logf("%s: history %d operations (%d accepted, %d rejected), %d stale writes (%d accepted); during the run: %d completed, %d pauses in progress",
				tc.name, c.Operations, c.Accepted, c.Rejected, cov.StaleWrites, cov.StaleAccepted, p.at.completed, p.at.pausing)

			require.NoError(t, srv.Close())
			_, err = scrape.Get(context.Background(), client, url)
			require.Error(t, err, "the server stops with Close")
		})
	}
}
