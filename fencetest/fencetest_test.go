package fencetest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/harness"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/internal/redact"
	"github.com/fencecheck/fencecheck/internal/testsupport/testdb"
	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/targets/memory"
)

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	errors []string
	fatal  bool
	logs   []string
}

func (r *recorder) Helper()                   {}
func (r *recorder) Errorf(f string, a ...any) { r.errors = append(r.errors, fmt.Sprintf(f, a...)) }
func (r *recorder) Fatalf(f string, a ...any) { r.fatal = true; r.Errorf(f, a...) }
func (r *recorder) Logf(f string, a ...any)   { r.logs = append(r.logs, fmt.Sprintf(f, a...)) }

// TestingT gives Synctest the test's own t.
func (r *recorder) TestingT() *testing.T { return r.TB.(*testing.T) }

func TestRun(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		target string
		change func(*harness.Config)
		fails  []string // what the failure message says; none: the test passes
	}{
		{name: "a correct receiver passes", target: "fenced"},
		{name: "an unfenced receiver fails with the minimal counterexample", target: "unfenced",
			fails: []string{"violated", "minimal counterexample:", "what the resource should have done", "report.html",
				"reproduce   go test -run '^TestRun$/^an_unfenced_receiver_fails_with_the_minimal_counterexample$' ./fencetest -fencetest.seed=1"}},
		{name: "a run that exercised no stale write fails the gate", target: "fenced", change: func(c *harness.Config) { c.Nemesis.Faults = nil },
			fails: []string{"inconclusive", "NO STALE WRITE WAS SUBMITTED",
				"no old token reached the resource before a newer one (add nemesis.Delay to Config.Nemesis.Faults)",
				"(add a process.Target as Config.Target.Receiver and nemesis.Kill to Config.Nemesis.Faults)"}},
		{name: "another seed is in the reproduce line", target: "unfenced", change: func(c *harness.Config) { c.Runtime.Seed = 9 },
			fails: []string{"violated", " ./fencetest -fencetest.seed=9\n"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tgt, err := memory.Open(tc.target)
			require.NoError(t, err)
			rec := &recorder{TB: t}
			cfg := Config(rec, tgt)
			cfg.Runtime.Deterministic, cfg.Store.Dir, cfg.Workload.Duration = true, schema.TempDir(t), 2*time.Second
			if tc.change != nil {
				tc.change(&cfg)
			}
			res := Run(rec, cfg)
			assert.False(t, rec.fatal)
			assert.DirExists(t, res.Dir, "the run directory is kept")
			assert.FileExists(t, filepath.Join(res.Dir, "report.html"))
			if len(tc.fails) == 0 {
				assert.Empty(t, rec.errors)
				assert.Equal(t, judge.Held, res.Verdict)
				require.Len(t, rec.logs, 1)
				assert.Contains(t, rec.logs[0], res.Dir)
				return
			}
			require.Len(t, rec.errors, 1)
			for _, want := range tc.fails {
				assert.Contains(t, rec.errors[0], want)
			}
			assert.Contains(t, rec.errors[0], res.Dir, "the failure says where the run is kept")
		})
	}
}

func TestConfigStartsFromTheDefaults(t *testing.T) {
	t.Parallel()
	cfg := Config(t, memory.NewFenced())
	want := harness.DefaultConfig()
	assert.Equal(t, "fencetest://TestConfigStartsFromTheDefaults", cfg.Target.Name)
	assert.Equal(t, uint64(1), cfg.Runtime.Seed, "a failure reproduces")
	assert.Equal(t, want.Workload.Workers, cfg.Workload.Workers)
	assert.Equal(t, want.Workload.Duration, cfg.Workload.Duration)
	assert.Equal(t, want.Gates.MinStale, cfg.Gates.MinStale)
	assert.Len(t, cfg.Nemesis.Faults, len(want.Nemesis.Faults))
}

func TestRunRejectsABadConfig(t *testing.T) {
	t.Parallel()
	rec := &recorder{TB: t}
	cfg := Config(rec, memory.NewFenced())
	cfg.Store.Dir, cfg.Workload.Workers = schema.TempDir(t), -3
	Run(rec, cfg)
	assert.True(t, rec.fatal)
	assert.Contains(t, strings.Join(rec.errors, ""), "Workers: -3")
}

func TestDefaultStoreIsKept(t *testing.T) {
	dir := schema.TempDir(t)
	t.Setenv("FENCETEST_STORE", dir)
	rec := &recorder{TB: t}
	cfg := Config(rec, memory.NewFenced())
	cfg.Runtime.Deterministic, cfg.Workload.Duration, cfg.Workload.Ops = true, 0, 200
	res := Run(rec, cfg)
	assert.Empty(t, rec.errors)
	assert.True(t, strings.HasPrefix(res.Dir, dir))
	_, err := os.Stat(filepath.Join(dir, "latest"))
	assert.NoError(t, err)
}

// TestLeasesFromTheEnvironment: FENCETEST_LEASES gives a run without a
// lease service of its own the issuer it names, on the real clock, with
// the variable in the reproduce line; a bad spec fails the test naming
// the variable's spec; a test's own Issuer is left alone.
func TestLeasesFromTheEnvironment(t *testing.T) {
	dsn, skip := testdb.Redis().DSN()
	if skip != "" {
		t.Skip(skip)
	}
	t.Run("the issuer it names", func(t *testing.T) {
		t.Setenv(LeasesEnv, dsn)
		rec := &recorder{TB: t}
		cfg := Config(rec, memory.NewFenced())
		// Bounded by its work, not by time: the same run on a loaded machine.
		cfg.Runtime.Deterministic, cfg.Store.Dir, cfg.Workload.Duration, cfg.Workload.Ops = true, schema.TempDir(t), 0, 300
		cfg.Workload.OpTimeout = 2 * time.Second
		res := Run(rec, cfg)
		require.Empty(t, rec.errors)
		assert.Equal(t, judge.Held, res.Verdict, res.Reason)
		assert.False(t, res.Config.Deterministic, "a real issuer runs on the real clock")
		assert.Contains(t, strings.Join(rec.logs, "\n"), "the run is on the real clock")
		assert.Equal(t, redact.Spec(dsn), res.Config.Leases, "result.json names the issuer")
		assert.True(t, strings.HasPrefix(res.Config.Command, LeasesEnv+"="+dsn+" go test -run "), res.Config.Command)
		h, err := histories.Read(t.Context(), histories.Source{Path: filepath.Join(res.Dir, "history.jsonl")})
		require.NoError(t, err)
		grants := 0
		for _, e := range h.Others {
			if e.Actor == histories.ActorLease && e.F == histories.FAcquire {
				grants++
				assert.Contains(t, e.Detail, "receives token")
			}
		}
		assert.Positive(t, grants)
	})
	t.Run("a synctest run goes on the real clock", func(t *testing.T) {
		t.Setenv(LeasesEnv, dsn)
		rec := &recorder{TB: t}
		cfg := Config(rec, memory.NewFenced())
		cfg.Store.Dir, cfg.Workload.Duration, cfg.Workload.Ops, cfg.Workload.OpTimeout = schema.TempDir(t), 0, 300, 2*time.Second
		res := RunSynctest(rec, cfg)
		require.Empty(t, rec.errors)
		assert.Equal(t, judge.Held, res.Verdict, res.Reason)
		assert.False(t, res.Config.VirtualClock, "a real issuer's servers are outside any bubble")
		assert.Contains(t, strings.Join(rec.logs, "\n"), "the run is on the real clock, not the deterministic simulation or a synctest bubble")
	})
	t.Run("a bad spec fails the test", func(t *testing.T) {
		t.Setenv(LeasesEnv, "redis://u:s3cr3t@127.0.0.1:6379/notadb")
		rec := &recorder{TB: t}
		cfg := Config(rec, memory.NewFenced())
		cfg.Store.Dir = schema.TempDir(t)
		Run(rec, cfg)
		assert.True(t, rec.fatal)
		msg := strings.Join(rec.errors, "")
		assert.Contains(t, msg, "fencetest: lease spec: redis://u:xxxxx@127.0.0.1:6379/notadb: ")
		assert.NotContains(t, msg, "s3cr3t")
	})
	t.Run("local is the run's own service", func(t *testing.T) {
		t.Setenv(LeasesEnv, "local")
		rec := &recorder{TB: t}
		cfg := Config(rec, memory.NewFenced())
		cfg.Runtime.Deterministic, cfg.Store.Dir, cfg.Workload.Duration, cfg.Workload.Ops = true, schema.TempDir(t), 0, 200
		res := Run(rec, cfg)
		assert.Empty(t, rec.errors)
		assert.True(t, res.Config.Deterministic)
		assert.NotContains(t, res.Config.Command, LeasesEnv)
	})
}
