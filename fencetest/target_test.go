package fencetest

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/internal/testsupport/testdb"
	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/nemesis/tcpproxy"
	targetspec "github.com/fencecheck/fencecheck/targets/spec"
	sqltarget "github.com/fencecheck/fencecheck/targets/sqltarget"
)

// TestTargetFromASpec: a test opens its receiver from the spec it would
// give fencecheck run, runs against it, and the target is closed when
// the test ends; a spec that cannot be opened fails the test with the
// reason.
func TestTargetFromASpec(t *testing.T) {
	t.Parallel()
	var tgt *targetspec.Target
	t.Run("run", func(t *testing.T) {
		tgt = Target(t, "sqlite://"+filepath.Join(schema.TempDir(t), "r.db"), targetspec.DefaultOptions())
		rec := &recorder{TB: t}
		cfg := TargetConfig(rec, tgt, nil)
		// No fault: this test is about opening the receiver, so it opts
		// out of the stale-write gate, and the pass says it tested none.
		cfg.Store.Dir, cfg.Workload.Duration, cfg.Workload.Ops, cfg.Gates.MinStale = schema.TempDir(t), 0, 100, 0
		res := Run(rec, cfg)
		require.Empty(t, rec.errors)
		assert.Equal(t, judge.Held, res.Verdict, res.Reason)
		assert.False(t, cfg.Runtime.Deterministic, "a database is on the real clock")
	})
	_, err := tgt.Target.Write(context.Background(), "r", 1, "after the test")
	assert.Error(t, err, "closed when the test ended")

	rec := &recorder{TB: t}
	assert.Nil(t, Target(rec, "memory://nope", targetspec.DefaultOptions()))
	require.True(t, rec.fatal)
	assert.Contains(t, rec.errors[0], "fencetest: open target: the target spec: unknown memory target")
}

// TestTCPFaultsInFrontOfARealPostgreSQL: the TCP proxy's faults act on
// the bytes between the workers and a real PostgreSQL server: a late
// answer, a request held until another connection's is answered, the
// ambiguous commit (the server commits, the client gets a reset). The
// built-in guarded upsert holds through each, and each fault acted on
// real traffic. It needs the server FENCECHECK_POSTGRES_DSN names (else
// the loopback one), and is skipped, saying so, when none answers.
func TestTCPFaultsInFrontOfARealPostgreSQL(t *testing.T) {
	t.Parallel()
	dsn, skip := testdb.Postgres().DSN()
	if skip != "" {
		t.Skip(skip)
	}
	for _, name := range []string{tcpproxy.NameLatency, tcpproxy.NameHold, tcpproxy.NameReset} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fault, _ := tcpproxy.New(name)
			o := targetspec.DefaultOptions()
			o.Workers, o.Faults = 4, []nemesis.Fault{nemesis.NewPause(), fault}
			tgt := Target(t, dsn, o)
			rec := &recorder{TB: t}
			cfg := TargetConfig(rec, tgt, o.Faults)
			cfg.Store.Dir, cfg.Workload.Workers, cfg.Workload.Duration, cfg.Workload.Ops, cfg.Workload.OpTimeout = schema.TempDir(t), 4, 0, 300, 2*time.Second
			script, err := nemesis.ParseScript("0s:+pause,0s:+" + name) // on from the start: acting does not wait on a timer
			require.NoError(t, err)
			cfg.Nemesis.Schedule = script
			res := Run(rec, cfg)
			require.Empty(t, rec.errors)
			assert.Equal(t, judge.Held, res.Verdict, res.Reason)
			assert.Positive(t, res.Coverage.FaultActions[name], "%s acted on the connections to PostgreSQL", name)
		})
	}
}

// TestStopAtTheFirstViolationOfARealPostgreSQL: a test against a real
// receiver that is broken need not run its whole length to fail: with
// StopOnViolation the history is judged as it is recorded and the run
// stops at the first violation, whose counterexample fails the test. The
// receiver is PostgreSQL's check-then-set statements (a read, a
// comparison in Go, a write), opened from its spec as fencecheck run
// would open it; the run would last a minute, and stops long before.
func TestStopAtTheFirstViolationOfARealPostgreSQL(t *testing.T) {
	t.Parallel()
	dsn, skip := testdb.Postgres().DSN()
	if skip != "" {
		t.Skip(skip)
	}
	o := targetspec.DefaultOptions()
	sql := sqltarget.DefaultOptions()
	sql.Mode = sqltarget.ModeCheckThenSet
	o.Workers, o.SQL = 8, &sql
	tgt := Target(t, dsn, o)
	rec := &recorder{TB: t}
	cfg := TargetConfig(rec, tgt, []nemesis.Fault{nemesis.NewPause(), nemesis.NewDelay()})
	cfg.Store.Dir, cfg.Workload.Duration, cfg.Gates.StopOnViolation = schema.TempDir(t), time.Minute, true
	res := Run(rec, cfg)
	require.NotEmpty(t, rec.errors, "a broken receiver fails the test")
	assert.Contains(t, rec.errors[0], "violated")
	assert.Equal(t, judge.Violated, res.Verdict, res.Reason)
	assert.True(t, res.Interrupted, "stopped before its end")
	assert.Contains(t, res.StoppedBecause, "a violation on ")
	assert.Contains(t, res.StoppedBecause, "(Config.Gates.StopOnViolation)", "the reason in the library's own terms")
	assert.Less(t, res.Elapsed, cfg.Workload.Duration, "the run stopped at the violation, not at its end")
}
