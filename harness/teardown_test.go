package harness

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/runstore"
	sqltarget "github.com/fencecheck/fencecheck/targets/sqltarget"
)

// lockedAtTeardown is a SQLite target whose scratch table another
// session holds (BEGIN IMMEDIATE) when the run tears it down, so that the
// DROP waits for the lock past its deadline and fails for real.
type lockedAtTeardown struct {
	*sqltarget.Target
	t    *testing.T
	side *sql.Conn
}

func (l *lockedAtTeardown) Teardown(ctx context.Context) error {
	_, err := l.side.ExecContext(ctx, "BEGIN IMMEDIATE")
	require.NoError(l.t, err)
	terr := l.Target.Teardown(ctx)
	_, err = l.side.ExecContext(ctx, "ROLLBACK")
	require.NoError(l.t, err)
	return terr
}

// TestTeardownFailureIsAWarning: a run whose tear-down fails keeps its
// verdict and says, in the result, result.json and summary.txt, which
// table was left behind and how to remove it.
func TestTeardownFailureIsAWarning(t *testing.T) {
	t.Parallel()
	path := filepath.Join(schema.TempDir(t), "x.db")
	o := sqltarget.DefaultOptions()
	// How long the DROP waits for the lock; Open's ping takes it too, so
	// not so short that a loaded machine misses it.
	o.Timeout = 2 * time.Second
	tgt, err := sqltarget.Open(context.Background(), "sqlite://"+path, o)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, tgt.Close()) })
	db, err := sql.Open("sqlite", path)
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	side, err := db.Conn(context.Background())
	require.NoError(t, err)
	t.Cleanup(func() { _ = side.Close() })

	cfg := testConfig(t, &lockedAtTeardown{Target: tgt, t: t, side: side}, tgt.Name(), func(c *Config) {
		c.Runtime.Deterministic, c.Workload.Duration, c.Workload.Ops, c.Workload.Workers, c.Workload.Resources, c.Workload.Think = false, 0, 20, 2, 1, 0
	})
	res, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	assert.Equal(t, judge.Held, res.Verdict, res.Reason)
	table := tgt.Table()
	require.Len(t, res.Warnings, 1)
	assert.Contains(t, res.Warnings[0], "tear down "+tgt.Name()+": table "+table+" was left behind in ")
	assert.Contains(t, res.Warnings[0], "remove it with: DROP TABLE IF EXISTS "+table)

	data, err := os.ReadFile(filepath.Join(res.Dir, runstore.Result))
	require.NoError(t, err)
	var stored struct{ Warnings []string }
	require.NoError(t, json.Unmarshal(data, &stored))
	assert.Equal(t, res.Warnings, stored.Warnings, "result.json")
	summary, err := os.ReadFile(filepath.Join(res.Dir, runstore.Summary))
	require.NoError(t, err)
	assert.Contains(t, string(summary), "\nwarning     "+res.Warnings[0]+"\n")

	var left int
	require.NoError(t, side.QueryRowContext(context.Background(), "SELECT count(*) FROM sqlite_master WHERE name = ?", table).Scan(&left))
	assert.Equal(t, 1, left, "the warning is true: the table is still there")
}
