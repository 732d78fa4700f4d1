package workload_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/workload"
)

// overlapping returns the pairs of writes with adjacent tokens on one
// resource that were both on their way at once: each invoked before the
// other completed. These are what a receiver that checks the token and
// then writes in a second step fails on.
func overlapping(events []histories.Event) []string {
	type write struct {
		resource           string
		token              uint64
		invoked, completed int
	}
	open := map[int]*write{} // by process
	var writes []*write
	for i, e := range events {
		if e.F != histories.FWrite || e.Actor != "" {
			continue
		}
		switch e.Type {
		case histories.TypeInvoke:
			w := &write{resource: e.Resource, token: e.Token, invoked: i, completed: len(events)}
			open[e.Process] = w
			writes = append(writes, w)
		default:
			if w := open[e.Process]; w != nil {
				w.completed = i
				delete(open, e.Process)
			}
		}
	}
	var pairs []string
	for _, a := range writes {
		for _, b := range writes {
			if a.resource == b.resource && b.token == a.token+1 && a.invoked < b.completed && b.invoked < a.completed {
				pairs = append(pairs, fmt.Sprintf("%s %d+%d", a.resource, a.token, b.token))
			}
		}
	}
	return pairs
}

// staleFault stands for a fault that makes stale writes, holding no
// one: bursts start only in a run with such a fault.
type staleFault struct{ on bool }

func (f *staleFault) Name() string                                           { return "stale" }
func (f *staleFault) SetActive(on bool)                                      { f.on = on }
func (f *staleFault) Active() bool                                           { return f.on }
func (f *staleFault) Available(nemesis.Site) error                           { return nil }
func (f *staleFault) MakesStaleWrites()                                      {}
func (f *staleFault) Pause(context.Context, nemesis.Env, nemesis.PausePoint) {}

func burstConfig() workload.Config {
	cfg := baseConfig()
	cfg.Burst = workload.Burst{Share: 0.2, Size: 4, Wait: 400 * cfg.Think}
	return cfg
}

// Bursts make writes with adjacent tokens overlap on one resource, and
// the seed decides them: the same seed gives the same history, event for
// event, on the deterministic runtime.
func TestBurstsOverlapAdjacentTokensFromTheSeed(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			first := runPool(t, burstConfig(), seed, &staleFault{on: true})
			pairs := overlapping(first)
			assert.NotEmpty(t, pairs, "no two writes with adjacent tokens overlapped on one resource")
			again := runPool(t, burstConfig(), seed, &staleFault{on: true})
			require.Equal(t, first, again, "the same seed gave another history")
		})
	}
}

// Without bursts, or with bursts but no fault that makes stale writes,
// the same workload does not overlap adjacent writes: the overlaps above
// are the bursts' doing.
func TestNoBurstsNoOverlap(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		assert.Empty(t, overlapping(runPool(t, baseConfig(), seed, &staleFault{on: true})), "seed %d: bursts off", seed)
		assert.Empty(t, overlapping(runPool(t, burstConfig(), seed, &pauseSpy{})), "seed %d: no fault that makes stale writes", seed)
	}
}
