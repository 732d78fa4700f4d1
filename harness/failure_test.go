package harness

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/runstore"
	"github.com/fencecheck/fencecheck/targets"
	"github.com/fencecheck/fencecheck/targets/memory"
)

// dyingTarget fails on its own after a number of writes, as a receiver
// process that exits does.
type dyingTarget struct {
	targets.Target
	after  int64
	writes atomic.Int64
	once   sync.Once
	failed chan struct{}
}

var errDied = errors.New(`receiver "r" exited on its own after it was ready (exit status 7)`)

func (d *dyingTarget) Write(ctx context.Context, resource string, token uint64, value string) (histories.Outcome, error) {
	if d.writes.Add(1) == d.after {
		d.once.Do(func() { close(d.failed) })
	}
	return d.Target.Write(ctx, resource, token, value)
}

func (d *dyingTarget) Failed() <-chan struct{} { return d.failed }

func (d *dyingTarget) Err() error {
	select {
	case <-d.failed:
		return errDied
	default:
		return nil
	}
}

// failingFault reports the run as failed once it starts acting.
type failingFault struct{ nemesis.Fault }

func (f failingFault) Act(_ context.Context, env nemesis.Env) {
	env.Record(&histories.Event{Process: -1, Actor: histories.ActorNemesis, F: histories.FBegin, Fault: "pause", Detail: "about to fail"})
	env.Fail(errDied)
}

// TestRunThatFails: a target that fails on its own, or a fault that calls
// Env.Fail, ends the run early with that error instead of a verdict, and
// the history recorded until then is closed in the run directory.
func TestRunThatFails(t *testing.T) {
	t.Parallel()
	pause, err := nemesis.Parse("pause")
	require.NoError(t, err)
	cases := []struct {
		name   string
		target func(targets.Target) targets.Target
		faults []nemesis.Fault
		det    bool
		// duration is one the run would not finish in a test's time
		// (real clock), or whose end is past the failure (simulation).
		duration time.Duration
	}{
		{"the target fails", func(t targets.Target) targets.Target {
			return &dyingTarget{Target: t, after: 20, failed: make(chan struct{})}
		}, nil, false, time.Hour},
		{"a fault fails the run", func(t targets.Target) targets.Target { return t },
			[]nemesis.Fault{failingFault{pause[0]}}, true, 5 * time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mem, err := memory.Open("fenced")
			require.NoError(t, err)
			res, err := Run(context.Background(), testConfig(t, tc.target(mem), "test://dying", func(c *Config) {
				c.Nemesis.Faults, c.Runtime.Seed, c.Runtime.Deterministic, c.Workload.Duration, c.Store.NoReport = tc.faults, 1, tc.det, tc.duration, true
			}))
			require.Error(t, err)
			assert.ErrorIs(t, err, errDied)
			path := filepath.Join(res.Dir, runstore.History)
			assert.Contains(t, err.Error(), path)
			h, err := histories.Read(t.Context(), histories.Source{Path: path})
			require.NoError(t, err, "the history of a failed run is readable")
			assert.NotEmpty(t, h.Ops)
		})
	}
}
