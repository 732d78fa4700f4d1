package harness

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/check"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/model"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/runstore"
	"github.com/fencecheck/fencecheck/targets/memory"
)

// defaultRun is what `fencecheck run --target memory://NAME --seed S` does:
// 8 workers, 4 resources, 5 s of virtual time, pause and delay faults.
func defaultRun(t testing.TB, name string, seed uint64) Result {
	t.Helper()
	tgt, err := memory.Open(name)
	require.NoError(t, err)
	faults, err := nemesis.Parse("pause,delay")
	require.NoError(t, err)
	res, err := Run(context.Background(), Config{
		Target: tgt, TargetName: "memory://" + name, Faults: faults, Seed: seed,
		Deterministic: true, StoreDir: t.TempDir(),
	})
	require.NoError(t, err)
	return res
}

// TestDetection is the harness's promise: across 20 seeds, every broken
// receiver is found and the correct one never is, with stale writes
// exercised in every run.
func TestDetection(t *testing.T) {
	t.Parallel()
	const seeds = 20
	cases := []struct {
		target string
		want   check.Verdict
	}{
		{"fenced", check.Held},
		{"unfenced", check.Violated},
		{"check-then-set", check.Violated},
		{"accept-equal", check.Violated},
	}
	for _, tc := range cases {
		t.Run(tc.target, func(t *testing.T) {
			t.Parallel()
			for seed := uint64(1); seed <= seeds; seed++ {
				res := defaultRun(t, tc.target, seed)
				assert.Equal(t, tc.want, res.Verdict, "seed %d: %s", seed, res.Reason)
				if tc.target == "fenced" {
					assert.Positive(t, res.Coverage.StaleWrites, "seed %d exercised no stale write", seed)
					assert.Equal(t, res.Coverage.StaleWrites, res.Coverage.StaleRejected+res.Coverage.StaleUnknown, "seed %d", seed)
				}
				if tc.want == check.Violated {
					require.NotEmpty(t, res.Check.Violations, "seed %d", seed)
				}
			}
		})
	}
}

func TestAcceptEqualIsValidUnderItsPolicy(t *testing.T) {
	t.Parallel()
	tgt := memory.NewAcceptEqual()
	faults, _ := nemesis.Parse("pause,delay,duplicate")
	res, err := Run(context.Background(), Config{Target: tgt, TargetName: "memory://accept-equal", Faults: faults,
		Seed: 3, Deterministic: true, Policy: model.AcceptEqual, StoreDir: t.TempDir()})
	require.NoError(t, err)
	assert.Equal(t, check.Held, res.Verdict, res.Reason)
	assert.Positive(t, res.Coverage.EqualTokenAccepted)
}

func TestSameSeedSameHistory(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"fenced", "check-then-set"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			a, b := defaultRun(t, name, 99), defaultRun(t, name, 99)
			ha, err := os.ReadFile(filepath.Join(a.Dir, runstore.History))
			require.NoError(t, err)
			hb, err := os.ReadFile(filepath.Join(b.Dir, runstore.History))
			require.NoError(t, err)
			require.NotEmpty(t, ha)
			assert.True(t, bytes.Equal(ha, hb), "histories of the same seed differ")
			c := defaultRun(t, name, 100)
			hc, err := os.ReadFile(filepath.Join(c.Dir, runstore.History))
			require.NoError(t, err)
			assert.False(t, bytes.Equal(ha, hc), "another seed should give another history")
		})
	}
}

func TestRunStore(t *testing.T) {
	t.Parallel()
	store := t.TempDir()
	tgt := memory.NewFenced()
	res, err := Run(context.Background(), Config{Target: tgt, TargetName: "memory://fenced", Seed: 1, Deterministic: true,
		StoreDir: store, Ops: 200})
	require.NoError(t, err)
	for _, f := range []string{runstore.History, runstore.Result, runstore.Summary} {
		assert.FileExists(t, filepath.Join(res.Dir, f))
	}
	latest, err := filepath.EvalSymlinks(filepath.Join(store, runstore.Latest))
	require.NoError(t, err)
	dir, err := filepath.EvalSymlinks(res.Dir)
	require.NoError(t, err)
	assert.Equal(t, dir, latest)
	assert.Equal(t, "memory-fenced", filepath.Base(filepath.Dir(res.Dir)))
	// The operation limit bounds the client operations; the reads that
	// observe every resource before and after the run come on top.
	assert.LessOrEqual(t, res.Counts.Operations, 200+2*4)
	h, err := histories.ReadFile(filepath.Join(res.Dir, runstore.History))
	require.NoError(t, err)
	assert.Equal(t, res.Counts, histories.Count(h.Operations))
}

func TestInterruptedRunLeavesACheckableHistory(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	faults, _ := nemesis.Parse("pause")
	res, err := Run(ctx, Config{Target: memory.NewFenced(), TargetName: "memory://fenced", Faults: faults,
		Duration: time.Hour, LeaseTTL: 20 * time.Millisecond, StoreDir: t.TempDir()})
	require.NoError(t, err)
	assert.True(t, res.Interrupted)
	assert.Positive(t, res.Counts.Operations)
	h, err := histories.ReadFile(filepath.Join(res.Dir, runstore.History))
	require.NoError(t, err)
	assert.Equal(t, res.Counts.Operations, len(h.Operations))
}

func TestRequireExclusive(t *testing.T) {
	t.Parallel()
	// The fenced receiver accepts old tokens that arrive before the newer
	// one: correct for fencing, a violation of the stronger requirement.
	found := false
	for seed := uint64(1); seed <= 10 && !found; seed++ {
		faults, _ := nemesis.Parse("delay,expire")
		res, err := Run(context.Background(), Config{Target: memory.NewFenced(), TargetName: "memory://fenced", Faults: faults,
			Seed: seed, Deterministic: true, RequireExclusive: true, StoreDir: t.TempDir()})
		require.NoError(t, err)
		assert.Empty(t, res.Check.Violations, "seed %d: fencing itself held", seed)
		if len(res.Exclusive) > 0 {
			found = true
			assert.Equal(t, check.Violated, res.Verdict)
			assert.Contains(t, res.Summary(), "after their lease was reassigned")
		}
	}
	assert.True(t, found, "no seed sent a write after its lease was reassigned")
}

func TestMinStaleGate(t *testing.T) {
	t.Parallel()
	res, err := Run(context.Background(), Config{Target: memory.NewFenced(), TargetName: "memory://fenced", Seed: 1,
		Deterministic: true, MinStale: 1, StoreDir: t.TempDir()}) // no faults: nothing stale
	require.NoError(t, err)
	assert.Equal(t, 0, res.Coverage.StaleWrites)
	assert.Equal(t, check.Inconclusive, res.Verdict)
	assert.Contains(t, res.Summary(), "NO STALE WRITE WAS SUBMITTED")
}

func TestConfigValidation(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		cfg  Config
		want string
	}{
		{"no target", Config{}, "target: required"},
		{"workers", Config{Target: memory.NewFenced(), Workers: -1}, "workers: -1"},
		{"resources", Config{Target: memory.NewFenced(), Resources: -2}, "resources: -2"},
		{"lease", Config{Target: memory.NewFenced(), LeaseTTL: -time.Second}, "lease-ttl"},
		{"script names a missing fault", Config{Target: memory.NewFenced(), Schedule: nemesis.Script{Steps: []nemesis.Step{{Fault: "pause", On: true}}}}, `"pause"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := Run(context.Background(), func() Config { c := tc.cfg; c.StoreDir = t.TempDir(); return c }())
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestScriptedSchedule(t *testing.T) {
	t.Parallel()
	sc, err := nemesis.ParseScript("1s:+pause,3s:-pause")
	require.NoError(t, err)
	faults, _ := nemesis.Parse("pause")
	res, err := Run(context.Background(), Config{Target: memory.NewFenced(), TargetName: "memory://fenced", Faults: faults,
		Schedule: sc, Seed: 5, Deterministic: true, StoreDir: t.TempDir()})
	require.NoError(t, err)
	h, err := histories.ReadFile(filepath.Join(res.Dir, runstore.History))
	require.NoError(t, err)
	var windows []string
	for _, e := range h.Others {
		if e.Actor == histories.ActorNemesis && (e.F == histories.FStart || e.F == histories.FStop) {
			windows = append(windows, fmt.Sprintf("%s@%v", e.F, time.Duration(e.Time).Round(time.Millisecond)))
		}
	}
	assert.Equal(t, []string{"start@1s", "stop@3s"}, windows)
}

func TestRateAndProgress(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	var last Progress
	var mu sync.Mutex
	res, err := Run(context.Background(), Config{
		Target: memory.NewFenced(), TargetName: "memory://fenced", Seed: 2, Deterministic: true,
		Duration: 2 * time.Second, Rate: 100, StoreDir: t.TempDir(),
		Progress: func(p Progress) {
			calls.Add(1)
			mu.Lock()
			last = p
			mu.Unlock()
		},
	})
	require.NoError(t, err)
	// 100 operations a second for 2 s of virtual time, plus the final reads.
	assert.InDelta(t, 200, res.Counts.Operations, 12)
	assert.Positive(t, calls.Load(), "progress is reported at least once, at the end")
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, int64(res.Counts.Operations), last.Ops)
}
