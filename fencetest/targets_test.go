package fencetest

import (
	"context"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/internal/testsupport/testdb"
	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/lease"
	"github.com/fencecheck/fencecheck/targets"
	"github.com/fencecheck/fencecheck/targets/redistarget"
	sqltarget "github.com/fencecheck/fencecheck/targets/sqltarget"
)

// TestRealTargetsWithTheirOptions: what the CLI's --redis-*, --sql-*,
// --tokens and --max-token flags set is, in a Go test, the options of the
// target's package and of harness.Config. A receiver tested with go test
// gets every option run gets: a Redis WATCH transaction and SQLite's
// built-in upsert, with tokens jumping across 2^31, 2^32 and 2^53 inside
// each target's declared domain, hold.
func TestRealTargetsWithTheirOptions(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		open   func(t *testing.T) targets.Target
		domain uint64
	}{
		{"redis watch", func(t *testing.T) targets.Target {
			dsn, skip := testdb.Redis().DSN()
			if skip != "" {
				t.Skip(skip)
			}
			o := redistarget.DefaultOptions()
			o.Mode = redistarget.ModeWatch
			tgt, err := redistarget.Open(context.Background(), dsn, o)
			require.NoError(t, err)
			t.Cleanup(func() { assert.NoError(t, tgt.Close()) })
			return tgt
		}, math.MaxUint64},
		{"sqlite atomic", func(t *testing.T) targets.Target {
			o := sqltarget.DefaultOptions()
			o.Mode = sqltarget.ModeAtomic
			tgt, err := sqltarget.Open(context.Background(), "sqlite://"+filepath.Join(schema.TempDir(t), "r.db"), o)
			require.NoError(t, err)
			t.Cleanup(func() { assert.NoError(t, tgt.Close()) })
			return tgt
		}, targets.MaxToken63},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tgt := tc.open(t)
			rec := &recorder{TB: t}
			cfg := Config(rec, tgt)
			// Bounded by its work, not by time: the same run on a loaded
			// machine.
			cfg.Store.Dir, cfg.Workload.Duration, cfg.Workload.Ops, cfg.Workload.OpTimeout = schema.TempDir(t), 0, 400, 2*time.Second
			cfg.Leases.Tokens = lease.Sparse()
			res := Run(rec, cfg)
			require.Empty(t, rec.errors)
			assert.Equal(t, judge.Held, res.Verdict, res.Reason)
			assert.Equal(t, tc.domain, res.Config.MaxToken, "the run keeps inside the target's declared domain")
			h, err := histories.Read(t.Context(), histories.Source{Path: filepath.Join(res.Dir, "history.jsonl")})
			require.NoError(t, err)
			var highest uint64
			for _, op := range h.Expand(nil) {
				if op.F == histories.FWrite && op.Status == histories.StatusAccepted {
					highest = max(highest, op.Token)
				}
			}
			assert.Greater(t, highest, uint64(1)<<31, "sparse tokens crossed 2^31 in an accepted write")
			assert.LessOrEqual(t, highest, tc.domain)
		})
	}
}
