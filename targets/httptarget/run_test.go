package httptarget_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/harness"
	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/nemesis/proxy"
	httptarget "github.com/fencecheck/fencecheck/targets/httptarget"
	"github.com/fencecheck/fencecheck/targets/httptarget/receiver"
)

// runReceiver runs the harness in real time for a few seconds against the
// reference receiver in the given mode, through the fault proxy, with the
// generic faults and every proxy fault switched on for the fault phase.
func runReceiver(t *testing.T, bug receiver.Bug, seed uint64) harness.Result {
	t.Helper()
	ro := receiver.DefaultOptions()
	ro.Bug, ro.Window = bug, 20*time.Millisecond
	h, err := receiver.NewHandler(receiver.NewMemory(), ro)
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	defer srv.Close()
	const list = "pause,delay,duplicate,hold,duplicate-request,drop-response,latency"
	faults, err := nemesis.ParseWith(list, nemesis.Extra{Names: proxy.Names(), New: proxy.New})
	require.NoError(t, err)
	// Every fault on from the start, and a run as long as its operations
	// rather than a duration: each fault acts, and the held writes are
	// released by events (a newer token accepted), however loaded the
	// machine is.
	var script nemesis.Script
	for _, f := range strings.Split(list, ",") {
		script.Steps = append(script.Steps, nemesis.Step{At: 0, Fault: f, On: true})
	}
	p, err := proxy.Start(srv.URL, proxy.Toxics(faults)...)
	require.NoError(t, err)
	defer p.Close()
	o := httptarget.DefaultOptions()
	o.Workers, o.Describe = 16, proxy.Describe
	tgt, err := httptarget.New(p.URL(), o)
	require.NoError(t, err)
	cfg := harness.DefaultConfig()
	cfg.Target.Receiver, cfg.Target.Name, cfg.Workload.Workers, cfg.Workload.Resources, cfg.Workload.Duration, cfg.Workload.Ops = tgt, srv.URL, 16, 2, 0, 1500
	cfg.Nemesis.Faults, cfg.Nemesis.Schedule, cfg.Runtime.Seed, cfg.Store.Dir, cfg.Gates.MinStale = faults, script, seed, schema.TempDir(t), 0
	res, err := harness.Run(context.Background(), cfg)
	require.NoError(t, err)
	return res
}

// TestReferenceReceiverInRun: the correct receiver holds under every
// fault, with stale writes exercised and rejected; each bug mode that a
// run can find without a restart is found, in one run.
func TestReferenceReceiverInRun(t *testing.T) {
	t.Parallel()
	t.Run("correct", func(t *testing.T) {
		t.Parallel()
		res := runReceiver(t, receiver.NoBug, 1)
		assert.Equal(t, judge.Held, res.Verdict, res.Summary())
		assert.Positive(t, res.Coverage.StaleWrites, "no stale write was exercised")
		assert.Zero(t, res.Coverage.StaleAccepted)
		assert.Positive(t, res.Coverage.UnknownOutcomes, "drop-response should leave unknown outcomes")
		for _, fault := range []string{"hold", "drop-response", "latency"} {
			assert.Positive(t, res.Coverage.FaultActions[fault], "fault %s never acted", fault)
		}
		t.Logf("correct receiver: %d operations, %d stale writes rejected, %d unknown; %s",
			res.Counts.Operations, res.Coverage.StaleRejected, res.Coverage.UnknownOutcomes, res.Reason)
	})
	for _, bug := range []receiver.Bug{receiver.Unfenced, receiver.CheckThenSet, receiver.AcceptEqual} {
		t.Run(bug.String(), func(t *testing.T) {
			t.Parallel()
			res := runReceiver(t, bug, 1)
			assert.Equal(t, judge.Violated, res.Verdict, res.Summary())
		})
	}
}
