package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/internal/testsupport/scrape"
)

// latestCounts counts the operations of the latest run's history file in
// the store under dir, with the histories package.
func latestCounts(t *testing.T, store string) histories.Counts {
	t.Helper()
	h, err := histories.Read(t.Context(), histories.Source{Path: filepath.Join(store, "latest", "history.jsonl")})
	require.NoError(t, err)
	return h.Count()
}

// TestReceiverMetricsEqualTheHistoryE2E: the built receiver, correct and
// with check-then-set, after a run of the built fencecheck against it:
// its /metrics counts as many accepted and rejected writes as the run's
// history file holds.
func TestReceiverMetricsEqualTheHistoryE2E(t *testing.T) {
	t.Parallel()
	for _, bug := range []string{"none", "check-then-set"} {
		t.Run(bug, func(t *testing.T) {
			t.Parallel()
			base := startReceiver(t, "--bug", bug)
			dir := schema.TempDir(t)
			// No request or operation timeout: a write the receiver
			// answered after the client gave up would be counted by the
			// receiver alone.
			r := fencecheck(t, dir, "run", "--target", base, "--workers", "4", "--resources", "2", "--ops", "300",
				"--lease-ttl", "50ms", "--op-timeout", "5m", "--request-timeout", "0", "--min-stale", "0", "--no-report", "--store", "s")
			require.NotEqual(t, 3, r.code, r.stderr)
			c := latestCounts(t, filepath.Join(dir, "s"))
			require.Zero(t, c.UnknownWrites+c.FailedWrites, "every write was answered")
			require.Positive(t, c.Rejected, "repeated tokens and stale writes are rejected")

			fams, err := scrape.Get(context.Background(), http.DefaultClient, base+"/metrics")
			require.NoError(t, err)
			accepted, rejected := fams.Sum("fencecheck_receiver_writes_accepted_total"), fams.Sum("fencecheck_receiver_writes_rejected_total")
			assert.Equal(t, float64(c.Accepted), accepted, "accepted")
			assert.Equal(t, float64(c.Rejected), rejected, "rejected")
			t.Logf("receiver --bug %s (exit %d): history accepted %d rejected %d; /metrics accepted %v rejected %v",
				bug, r.code, c.Accepted, c.Rejected, accepted, rejected)
		})
	}
}

// TestRunMetricsE2E: `run --metrics` on the built binary. While a long
// run goes on, a scrape shows operations and the scripted pause fault
// active; the server stops with the run (here interrupted), and the last
// scrape's counts are within what the history file holds.
func TestRunMetricsE2E(t *testing.T) {
	t.Parallel()
	dir := schema.TempDir(t)
	cmd := exec.Command(fencecheckBinary, "run", "--target", "memory://fenced", "--realtime", "--duration", "1h", "--rate", "200",
		"--workers", "4", "--resources", "2", "--nemesis", "pause", "--nemesis-script", "0s:+pause", "--min-stale", "0",
		"--metrics", "127.0.0.1:0", "--no-report", "--store", "s")
	cmd.Dir = dir
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	rd := bufio.NewReader(stderr)
	line, err := rd.ReadString('\n')
	require.NoError(t, err)
	m := regexp.MustCompile(`live metrics at (http://\S+/metrics)`).FindStringSubmatch(line)
	require.NotNil(t, m, "first line %q", line)
	url := m[1]
	rest := make(chan string, 1)
	go func() { b, _ := io.ReadAll(rd); rest <- string(b) }()

	var last scrape.Families
	require.Eventually(t, func() bool {
		fams, err := scrape.Get(context.Background(), http.DefaultClient, url)
		if err != nil {
			return false
		}
		last = fams
		active, _ := fams.Value("fencecheck_run_fault_active", "fault", "pause")
		return active == 1 && fams.Sum("fencecheck_run_operations_total", "outcome", "accepted") >= 10
	}, time.Minute, 20*time.Millisecond, "a scrape during the run shows accepted writes and the pause fault active")

	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	err = cmd.Wait()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, 2, ee.ExitCode(), "an interrupted run is inconclusive: %s", <-rest)
	_, err = scrape.Get(context.Background(), http.DefaultClient, url)
	require.Error(t, err, "the metrics server stops with the run")

	c := latestCounts(t, filepath.Join(dir, "s"))
	ops := func(outcome string) int { return int(last.Sum("fencecheck_run_operations_total", "outcome", outcome)) }
	assert.LessOrEqual(t, ops("accepted"), c.Accepted)
	assert.LessOrEqual(t, ops("rejected"), c.Rejected)
	assert.LessOrEqual(t, int(last.Sum("fencecheck_run_operations_invoked_total")), c.Operations)
	t.Logf("last scrape during the run: %d accepted, %d rejected; history: %d accepted, %d rejected", ops("accepted"), ops("rejected"), c.Accepted, c.Rejected)
}

func TestRunMetricsRefusesARemoteAddress(t *testing.T) {
	t.Parallel()
	r := fencecheck(t, schema.TempDir(t), "run", "--target", "memory://fenced", "--metrics", "0.0.0.0:9787")
	assert.Equal(t, 3, r.code)
	assert.True(t, strings.Contains(r.stderr, "--metrics-allow-remote"), r.stderr)
}

// TestRunMetricsLeftOutOfTheReproduceLine: --metrics says where the
// counters go, not what the run does; a pasted reproduce line must not
// try to take the same port.
func TestRunMetricsLeftOutOfTheReproduceLine(t *testing.T) {
	t.Parallel()
	r := fencecheck(t, schema.TempDir(t), "run", "--target", "memory://fenced", "--ops", "200", "--nemesis", "none", "--min-stale", "0",
		"--metrics", "127.0.0.1:0", "--no-report")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "live metrics at http://127.0.0.1:")
	line := reproduceOf(t, r.stdout)
	assert.NotContains(t, line, "--metrics")
}
