package harness

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/runstore"
	"github.com/fencecheck/fencecheck/targets"
	"github.com/fencecheck/fencecheck/targets/memory"
	"github.com/fencecheck/fencecheck/workload"
)

// mainHistorySHA256 is the SHA-256 of the history of defaultRun
// ("check-then-set", seed 99) as a fencecheck without trace ids wrote it
// (history format 0, without a header). A target that carries no trace
// context must leave its histories exactly as they were: a user who kept
// a seed gets the same history, byte for byte, from a newer version, but
// for the format header that format 1 put first (which moved every index
// up by one).
const mainHistorySHA256 = "861bf428a0442dd8af5018173d74620205209ff865f62f3a298103bc90979b5e"

func TestAMemoryTargetsHistoryIsAsBeforeTraceIDs(t *testing.T) {
	t.Parallel()
	// Without contention bursts, which came later and change the
	// histories of every seed: --burst 0 gives the earlier ones back.
	res := defaultRunWith(t, "check-then-set", 99, func(c *Config) { c.Workload.Burst = workload.Burst{} })
	h, err := os.ReadFile(filepath.Join(res.Dir, runstore.History))
	require.NoError(t, err)
	assert.NotContains(t, string(h), `"trace"`)
	header, body, ok := bytes.Cut(h, []byte("\n"))
	require.True(t, ok)
	require.Contains(t, string(header), `"f":"header"`)
	var before bytes.Buffer
	index := regexp.MustCompile(`^\{"index":(\d+),`)
	for line := range bytes.Lines(body) {
		m := index.FindSubmatch(line)
		require.NotNil(t, m, "%s", line)
		n, err := strconv.ParseInt(string(m[1]), 10, 64)
		require.NoError(t, err)
		fmt.Fprintf(&before, `{"index":%d,`, n-1)
		before.Write(line[len(m[0]):])
	}
	sum := sha256.Sum256(before.Bytes())
	assert.Equal(t, mainHistorySHA256, hex.EncodeToString(sum[:]), "the history without its header, indexed as in format 0")
}

// tracedMemory is the correct in-memory receiver as a target that
// carries traces, as an HTTP or SQL target does: it keeps the trace id
// of every request.
type tracedMemory struct {
	*memory.Fenced
	mu   sync.Mutex
	seen map[string]int
}

func newTracedMemory() *tracedMemory {
	return &tracedMemory{Fenced: memory.NewFenced(), seen: make(map[string]int)}
}

func (t *tracedMemory) CarriesTrace() bool { return true }

func (t *tracedMemory) saw(ctx context.Context) {
	tc, ok := targets.TraceFrom(ctx)
	t.mu.Lock()
	defer t.mu.Unlock()
	if ok {
		t.seen[tc.TraceIDString()]++
	} else {
		t.seen[""]++
	}
}

func (t *tracedMemory) Write(ctx context.Context, resource string, token uint64, value string) (histories.Outcome, error) {
	t.saw(ctx)
	return t.Fenced.Write(ctx, resource, token, value)
}

func (t *tracedMemory) Read(ctx context.Context, resource string) (targets.Reading, error) {
	t.saw(ctx)
	return t.Fenced.Read(ctx, resource)
}

// tracedRun runs a carrying target and returns its history.
func tracedRun(t *testing.T, tgt *tracedMemory, deterministic bool) []byte {
	t.Helper()
	res, err := Run(context.Background(), testConfig(t, tgt, "traced", func(c *Config) {
		c.Runtime.Seed, c.Runtime.Deterministic, c.Workload.Duration, c.Workload.Ops = 5, deterministic, 0, 300
	}))
	require.NoError(t, err)
	h, err := os.ReadFile(filepath.Join(res.Dir, runstore.History))
	require.NoError(t, err)
	return h
}

var traceField = regexp.MustCompile(`"trace":"([0-9a-f]{32})"`)

func TestARunRecordsTheTraceIDsItsTargetSent(t *testing.T) {
	t.Parallel()
	tgt := newTracedMemory()
	h := tracedRun(t, tgt, true)
	hist, err := histories.Read(t.Context(), histories.Source{Path: runstore.History, Reader: bytes.NewReader(h)})
	require.NoError(t, err)
	ids := make(map[string]bool)
	for _, op := range hist.Expand(nil) {
		if op.Initial {
			continue
		}
		require.NotEmpty(t, op.Trace, "op %d has no trace id", op.ID)
		assert.False(t, ids[op.Trace], "trace id %s recorded twice", op.Trace)
		ids[op.Trace] = true
		assert.Equal(t, 1, tgt.seen[op.Trace], "op %d: its request carried the id recorded on it", op.ID)
	}
	assert.Zero(t, tgt.seen[""], "a request of an operation without its trace context")
	assert.Len(t, tgt.seen, len(ids))

	again := tracedRun(t, newTracedMemory(), true)
	assert.Equal(t, string(h), string(again), "a rerun of a deterministic seed sends and records the same ids")
}

func TestARealTimeRunDrawsFreshTraceIDs(t *testing.T) {
	t.Parallel()
	ids := func() map[string]bool {
		out := make(map[string]bool)
		for _, m := range traceField.FindAllStringSubmatch(string(tracedRun(t, newTracedMemory(), false)), -1) {
			out[m[1]] = true
		}
		require.NotEmpty(t, out)
		return out
	}
	a, b := ids(), ids()
	for id := range a {
		assert.False(t, b[id], "trace id %s in both runs of seed 5: a real-time run's run id is drawn at random", id)
	}
}
