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

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/model"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/runstore"
	"github.com/fencecheck/fencecheck/sched"
	"github.com/fencecheck/fencecheck/targets"
	"github.com/fencecheck/fencecheck/targets/memory"
)

// defaultRun is what `fencecheck run --target memory://NAME --seed S` does:
// 8 workers, 4 resources, 5 s of virtual time, pause and delay faults.
func defaultRun(t testing.TB, name string, seed uint64) Result {
	t.Helper()
	return defaultRunWith(t, name, seed, nil)
}

// defaultRunWith is defaultRun with what set changes.
func defaultRunWith(t testing.TB, name string, seed uint64, set func(*Config)) Result {
	t.Helper()
	tgt, err := memory.Open(name)
	require.NoError(t, err)
	faults, err := nemesis.Parse("pause,delay")
	require.NoError(t, err)
	res, err := Run(context.Background(), testConfig(t, tgt, "memory://"+name, func(c *Config) {
		c.Nemesis.Faults, c.Runtime.Seed = faults, seed
		if set != nil {
			set(c)
		}
	}))
	require.NoError(t, err)
	return res
}

// testConfig is DefaultConfig against tgt, deterministic, in a store of
// the test's own, with no faults and no stale-write gate, then changed by
// set: each test adds the faults and the gates it is about.
func testConfig(t testing.TB, tgt targets.Target, name string, set func(*Config)) Config {
	cfg := DefaultConfig()
	cfg.Target.Receiver, cfg.Target.Name, cfg.Runtime.Deterministic, cfg.Store.Dir = tgt, name, true, schema.TempDir(t)
	cfg.Nemesis.Faults, cfg.Gates.MinStale = nil, 0
	if set != nil {
		set(&cfg)
	}
	return cfg
}

// TestDetection is the harness's promise: across 20 seeds, every broken
// receiver is found and the correct one never is, with stale writes
// exercised in every run.
func TestDetection(t *testing.T) {
	t.Parallel()
	const seeds = 20
	cases := []struct {
		target string
		want   judge.Verdict
	}{
		{"fenced", judge.Held},
		{"unfenced", judge.Violated},
		{"check-then-set", judge.Violated},
		{"accept-equal", judge.Violated},
	}
	for _, tc := range cases {
		t.Run(tc.target, func(t *testing.T) {
			t.Parallel()
			for seed := uint64(1); seed <= seeds; seed++ {
				res := defaultRun(t, tc.target, seed)
				assert.Equal(t, tc.want, res.Verdict, "seed %d: %s", seed, res.Reason)
				assert.Equal(t, judge.GateCheck, res.Gate, "seed %d", seed)
				assert.Empty(t, res.Check.Issuer, "seed %d: the local leases broke the issuer's invariant", seed)
				if tc.target == "fenced" {
					assert.Positive(t, res.Coverage.StaleWrites, "seed %d exercised no stale write", seed)
					assert.Equal(t, res.Coverage.StaleWrites, res.Coverage.StaleRejected+res.Coverage.StaleUnknown, "seed %d", seed)
				}
				if tc.want == judge.Violated {
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
	res, err := Run(context.Background(), testConfig(t, tgt, "memory://accept-equal", func(c *Config) {
		c.Nemesis.Faults, c.Runtime.Seed, c.Gates.Policy = faults, 3, model.AcceptEqual
	}))
	require.NoError(t, err)
	assert.Equal(t, judge.Held, res.Verdict, res.Reason)
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
	store := schema.TempDir(t)
	tgt := memory.NewFenced()
	res, err := Run(context.Background(), testConfig(t, tgt, "memory://fenced", func(c *Config) {
		c.Runtime.Seed, c.Store.Dir, c.Workload.Duration, c.Workload.Ops = 1, store, 0, 200
	}))
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
	h, err := histories.Read(t.Context(), histories.Source{Path: filepath.Join(res.Dir, runstore.History)})
	require.NoError(t, err)
	assert.Equal(t, res.Counts, h.Count())
}

func TestInterruptedRunLeavesACheckableHistory(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	faults, _ := nemesis.Parse("pause")
	res, err := Run(ctx, testConfig(t, memory.NewFenced(), "memory://fenced", func(c *Config) {
		c.Nemesis.Faults, c.Workload.Duration, c.Runtime.Deterministic = faults, time.Hour, false
		c.SetLeaseTTL(20 * time.Millisecond)
	}))
	require.NoError(t, err)
	assert.True(t, res.Interrupted)
	assert.Equal(t, context.DeadlineExceeded.Error(), res.StoppedBecause, "the context's cause")
	assert.Positive(t, res.Counts.Operations)
	h, err := histories.Read(t.Context(), histories.Source{Path: filepath.Join(res.Dir, runstore.History)})
	require.NoError(t, err)
	assert.Equal(t, res.Counts.Operations, len(h.Ops))
}

func TestRequireExclusive(t *testing.T) {
	t.Parallel()
	// The fenced receiver accepts old tokens that arrive before the newer
	// one: correct for fencing, a violation of the stronger requirement.
	found := false
	for seed := uint64(1); seed <= 10 && !found; seed++ {
		faults, _ := nemesis.Parse("delay,expire")
		res, err := Run(context.Background(), testConfig(t, memory.NewFenced(), "memory://fenced", func(c *Config) {
			c.Nemesis.Faults, c.Runtime.Seed, c.Gates.RequireExclusive = faults, seed, true
		}))
		require.NoError(t, err)
		assert.Empty(t, res.Check.Violations, "seed %d: fencing itself held", seed)
		if len(res.Exclusive) > 0 {
			found = true
			assert.Equal(t, judge.Violated, res.Verdict)
			assert.Equal(t, judge.GateExclusive, res.Gate)
			assert.Contains(t, res.Summary(), "after their lease had ended")
		}
	}
	assert.True(t, found, "no seed sent a write after its lease ended")
}

func TestMinStaleGate(t *testing.T) {
	t.Parallel()
	res, err := Run(context.Background(), testConfig(t, memory.NewFenced(), "memory://fenced", func(c *Config) {
		c.Runtime.Seed, c.Gates.MinStale = 1, 1 // no faults: nothing stale
	}))
	require.NoError(t, err)
	assert.Equal(t, 0, res.Coverage.StaleWrites)
	assert.Equal(t, judge.Inconclusive, res.Verdict)
	assert.Equal(t, judge.GateMinStale, res.Gate)
	assert.Contains(t, res.Summary(), "NO STALE WRITE WAS SUBMITTED")
}

func TestConfigValidation(t *testing.T) {
	t.Parallel()
	valid := func(set func(*Config)) Config {
		cfg := DefaultConfig()
		cfg.Target.Receiver = memory.NewFenced()
		set(&cfg)
		return cfg
	}
	pause, _ := nemesis.Parse("pause")
	cases := []struct {
		name string
		cfg  Config
		want []string // each a field's error; none: valid
	}{
		{"the defaults with a target", valid(func(*Config) {}), nil},
		{"zero means none", valid(func(c *Config) {
			c.Workload.ReadShare, c.Workload.RepeatShare, c.Workload.Think, c.Runtime.Latency, c.Workload.Rate, c.Gates.ShrinkTimeout, c.Gates.CheckTimeout, c.Gates.MinStale = 0, 0, 0, 0, 0, 0, 0, 0
			c.Nemesis.Faults, c.Nemesis.Schedule = nil, nil
		}), nil},
		{"no target", Config{}, []string{"Target.Receiver: required", "Workers: 0 is not between 1 and 10000", "Leases.TTL: must be positive", "Store.Dir: required"}},
		{"workers", valid(func(c *Config) { c.Workload.Workers = -1 }), []string{"Workers: -1"}},
		{"resources", valid(func(c *Config) { c.Workload.Resources = -2 }), []string{"Resources: -2"}},
		{"names for other resources", valid(func(c *Config) { c.Workload.ResourceNames = []string{"a", "b"} }), []string{"ResourceNames: 2 names for 4 resources"}},
		{"lease", valid(func(c *Config) { c.Leases.TTL = -time.Second }), []string{"Leases.TTL: must be positive"}},
		{"negative durations", valid(func(c *Config) {
			c.Workload.Duration, c.Workload.Think, c.Workload.OpTimeout, c.Runtime.Latency, c.Gates.CheckTimeout, c.Gates.ShrinkTimeout = -1, -1, -1, -1, -1, -1
		}), []string{"Duration: negative", "Think: negative", "OpTimeout: must be positive", "Latency: negative", "CheckTimeout: negative", "ShrinkTimeout: negative"}},
		{"negative counts", valid(func(c *Config) { c.Workload.Ops, c.Workload.Rate, c.Gates.MinStale = -1, -1, -1 }), []string{"Ops: negative", "Rate: negative", "MinStale: negative"}},
		{"shares", valid(func(c *Config) { c.Workload.ReadShare, c.Workload.RepeatShare = -0.1, 1.5 }), []string{"ReadShare: -0.1 is a probability", "RepeatShare: 1.5 is a probability"}},
		{"no end", valid(func(c *Config) { c.Workload.Duration, c.Workload.Ops = 0, 0 }), []string{"Duration: zero with no operation limit"}},
		{"run name latest", valid(func(c *Config) { c.Store.RunName = "latest" }), []string{`RunName: "latest": not a run name`}},
		{"run name outside the store", valid(func(c *Config) { c.Store.RunName = "../esc" }), []string{`RunName: "../esc": not a run name`}},
		{"faults without a schedule", valid(func(c *Config) { c.Nemesis.Schedule = nil }), []string{"Schedule: required with faults"}},
		{"a virtual clock in the simulation", valid(func(c *Config) { c.Runtime.VirtualClock, c.Runtime.Deterministic = true, true }),
			[]string{"VirtualClock: a deterministic run has a virtual clock of its own"}},
		{"PCT on the real clock", valid(func(c *Config) { c.Runtime.TaskOrder = sched.PCT(2) }),
			[]string{"TaskOrder: pct:2 orders the tasks of the deterministic simulation, and this run is not one"}},
		{"a real issuer on a virtual clock", valid(func(c *Config) { c.Runtime.VirtualClock, c.Leases.Issuer = true, serversIssuer{} }),
			[]string{"Issuer: servers-issuer talks to servers outside the process"}},
		{"script names a missing fault", valid(func(c *Config) {
			c.Nemesis.Faults, c.Nemesis.Schedule = pause, nemesis.Script{Steps: []nemesis.Step{{Fault: "delay", On: true}}}
		}), []string{`Schedule: nemesis script names fault "delay", which is not among the run's faults`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := tc.cfg.Validate()
			if len(tc.want) == 0 {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			for _, want := range tc.want {
				assert.Contains(t, err.Error(), want)
			}
			var fe *FieldError
			require.ErrorAs(t, err, &fe, "each problem names its field")
			_, err = Run(context.Background(), func() Config { c := tc.cfg; c.Store.Dir = schema.TempDir(t); return c }())
			require.Error(t, err, "Run refuses what Validate refuses")
		})
	}
}

func TestScriptedSchedule(t *testing.T) {
	t.Parallel()
	sc, err := nemesis.ParseScript("1s:+pause,3s:-pause")
	require.NoError(t, err)
	faults, _ := nemesis.Parse("pause")
	res, err := Run(context.Background(), testConfig(t, memory.NewFenced(), "memory://fenced", func(c *Config) {
		c.Nemesis.Faults, c.Nemesis.Schedule, c.Runtime.Seed = faults, sc, 5
	}))
	require.NoError(t, err)
	h, err := histories.Read(t.Context(), histories.Source{Path: filepath.Join(res.Dir, runstore.History)})
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
	res, err := Run(context.Background(), testConfig(t, memory.NewFenced(), "memory://fenced", func(c *Config) {
		c.Runtime.Seed, c.Workload.Duration, c.Workload.Rate = 2, 2*time.Second, 100
		c.Output.Progress = func(p Progress) {
			calls.Add(1)
			mu.Lock()
			last = p
			mu.Unlock()
		}
	}))
	require.NoError(t, err)
	// 100 operations a second for 2 s of virtual time, plus the final reads.
	assert.InDelta(t, 200, res.Counts.Operations, 12)
	assert.Positive(t, calls.Load(), "progress is reported at least once, at the end")
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, int64(res.Counts.Operations), last.Ops)
}
