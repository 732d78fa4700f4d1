package harness

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/runstore"
	"github.com/fencecheck/fencecheck/targets"
	"github.com/fencecheck/fencecheck/targets/memory"
)

// unreachable fails its set-up, as a receiver that does not answer does.
type unreachable struct{ targets.Target }

var errUnreachable = errors.New("receiver http://127.0.0.1:1 does not answer: connection refused")

func (unreachable) Setup(context.Context) error { return errUnreachable }

// TestOnlyARunWithAResultBecomesLatest: store/latest moves to a run once
// its result.json is written (an interrupted run's too) and never to a
// run that ends in an error. A run that could not start leaves nothing;
// one that recorded a history keeps it, with error.txt saying why there
// is no result.
func TestOnlyARunWithAResultBecomesLatest(t *testing.T) {
	t.Parallel()
	leftOver := memory.NewFenced()
	_, err := leftOver.Write(context.Background(), "r0", 17, "left-over")
	require.NoError(t, err)
	cases := []struct {
		name   string
		target func() targets.Target
		set    func(*Config)
		cancel bool // ctx is cancelled after 50 writes
		// latest: the run becomes latest; kept: its directory stays
		// (with error.txt when the run failed).
		latest, kept bool
		err          error
	}{
		{name: "it held", target: func() targets.Target { return memory.NewFenced() }, latest: true, kept: true},
		{name: "it was interrupted", target: func() targets.Target { return memory.NewFenced() }, cancel: true, latest: true, kept: true},
		{name: "set-up failed", target: func() targets.Target { return unreachable{memory.NewFenced()} }, err: errUnreachable},
		{name: "the state before it could not be judged", target: func() targets.Target { return tokenless{leftOver} },
			set: func(c *Config) { c.Workload.Resources, c.Workload.ResourceNames = 1, []string{"r0"} }, kept: true},
		{name: "the target failed mid-run", target: func() targets.Target {
			return &dyingTarget{Target: memory.NewFenced(), after: 20, failed: make(chan struct{})}
		}, set: func(c *Config) { c.Runtime.Deterministic, c.Workload.Duration = false, 0 }, kept: true, err: errDied},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			store := schema.TempDir(t)
			first, err := Run(context.Background(), testConfig(t, memory.NewFenced(), "memory://fenced", func(c *Config) {
				c.Store.Dir, c.Runtime.Seed, c.Workload.Duration, c.Workload.Ops, c.Store.NoReport = store, 1, 0, 50, true
			}))
			require.NoError(t, err)

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			tgt := tc.target()
			if tc.cancel {
				tgt = &cancelAfter{Fenced: memory.NewFenced(), writes: 50, cancel: cancel}
			}
			res, err := Run(ctx, testConfig(t, tgt, "test://second", func(c *Config) {
				c.Store.Dir, c.Runtime.Seed, c.Workload.Duration, c.Workload.Ops, c.Store.NoReport = store, 2, 0, 200, true
				if tc.set != nil {
					tc.set(c)
				}
			}))
			failed := !tc.latest
			if failed {
				require.Error(t, err)
			} else {
				require.NoError(t, err)
			}
			if tc.err != nil {
				assert.ErrorIs(t, err, tc.err)
			}
			assert.Equal(t, tc.cancel, res.Interrupted)

			latest, lerr := filepath.EvalSymlinks(filepath.Join(store, runstore.Latest))
			require.NoError(t, lerr)
			want := first.Dir
			if tc.latest {
				want = res.Dir
			}
			wantDir, lerr := filepath.EvalSymlinks(want)
			require.NoError(t, lerr)
			assert.Equal(t, wantDir, latest, "latest")
			_, rerr := os.Stat(filepath.Join(latest, runstore.Result))
			assert.NoError(t, rerr, "latest has a result")

			runs, gerr := filepath.Glob(filepath.Join(store, "test-second", "*"))
			require.NoError(t, gerr)
			if !tc.kept {
				assert.Empty(t, runs, "a run that never started leaves no directory")
				assert.NoDirExists(t, filepath.Join(store, "test-second"), "nor an empty name folder")
				assert.Empty(t, res.Dir)
				return
			}
			require.Len(t, runs, 1)
			assert.Equal(t, runs[0], res.Dir)
			_, herr := histories.Read(t.Context(), histories.Source{Path: filepath.Join(res.Dir, runstore.History)})
			assert.NoError(t, herr, "the history stays checkable")
			why, eerr := os.ReadFile(filepath.Join(res.Dir, runstore.Error))
			if failed {
				require.NoError(t, eerr)
				assert.Equal(t, err.Error()+"\n", string(why))
			} else {
				assert.ErrorIs(t, eerr, os.ErrNotExist, "a run with a result has no error.txt")
			}
		})
	}
}
