package harness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/check"
	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/runstore"
	"github.com/fencecheck/fencecheck/targets"
	"github.com/fencecheck/fencecheck/targets/memory"
	"github.com/fencecheck/fencecheck/workload"
)

// runAgainst runs cfg against tgt with pause and delay, deterministically.
func runAgainst(t *testing.T, tgt targets.Target, set func(*Config)) Result {
	t.Helper()
	faults, err := nemesis.Parse("pause,delay")
	require.NoError(t, err)
	cfg := testConfig(t, tgt, "memory://fenced", func(c *Config) {
		c.Nemesis.Faults = faults
		set(c)
	})
	res, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	return res
}

// TestSecondRunAgainstADurableReceiver: a receiver that keeps its state
// between runs (the same memory receiver, run twice with the same seed,
// so the same run-named resources, and with fixed names) holds both
// times. The second run observes what the first left, starts the model
// and the tokens from it; judged as if the resources had started empty,
// its history would be a violation, which is what users saw.
func TestSecondRunAgainstADurableReceiver(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		names []string
	}{
		{"run-named resources, same seed", nil},
		{"fixed names", []string{"r0", "r1", "r2", "r3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tgt := memory.NewFenced()
			cfg := func(c *Config) {
				c.Runtime.Seed, c.Workload.ResourceNames = 3, tc.names
				if tc.names != nil {
					c.Workload.Resources = len(tc.names)
				}
			}
			first := runAgainst(t, tgt, cfg)
			require.Equal(t, judge.Held, first.Verdict, first.Reason)
			assert.Zero(t, first.Coverage.InitialStates)
			second := runAgainst(t, tgt, cfg)
			require.Equal(t, judge.Held, second.Verdict, second.Summary())
			assert.Equal(t, 4, second.Coverage.InitialStates)
			assert.Positive(t, second.Coverage.StaleWrites)
			assert.Contains(t, second.Summary(), "4 resources held state from before the run")

			// Without the state before the run, the same history is
			// judged a violation: the initial events are what count.
			h, err := histories.Read(t.Context(), histories.Source{Path: filepath.Join(second.Dir, runstore.History)})
			require.NoError(t, err)
			var clients []histories.Operation
			for _, op := range h.Expand(nil) {
				if !op.Initial {
					clients = append(clients, op)
				}
			}
			res, err := check.Check(context.Background(), histories.FromOperations(clients), check.Options{})
			require.NoError(t, err)
			assert.Equal(t, check.Violated, res.Verdict, "the prior state must matter to this test")
		})
	}
}

// TestRunNamesItsResources: by default the resources carry the run's id,
// drawn from the seed in deterministic mode (the same seed, the same
// history) and at random on the real clock; fixed names keep the names
// and put the id in the values instead.
func TestRunNamesItsResources(t *testing.T) {
	t.Parallel()
	cfg := func(c *Config) { c.Runtime.Seed, c.Workload.Duration, c.Workload.Ops = 4, 0, 50 }
	a := runAgainst(t, memory.NewFenced(), cfg)
	b := runAgainst(t, memory.NewFenced(), cfg)
	assert.Equal(t, a.Config.ResourceNames, b.Config.ResourceNames)
	require.Len(t, a.Config.ResourceNames, 4)
	assert.Equal(t, a.Config.RunID+"-r0", a.Config.ResourceNames[0])
	assert.NotEqual(t, newRunID(4, false), newRunID(4, false), "real-time runs draw their id at random")

	fixed := runAgainst(t, memory.NewFenced(), func(c *Config) {
		c.Runtime.Seed, c.Workload.Duration, c.Workload.Ops, c.Workload.Resources, c.Workload.ResourceNames = 4, 0, 50, 1, []string{"report"}
	})
	assert.Equal(t, []string{"report"}, fixed.Config.ResourceNames)
	h, err := histories.Read(t.Context(), histories.Source{Path: filepath.Join(fixed.Dir, runstore.History)})
	require.NoError(t, err)
	for _, op := range h.Expand(nil) {
		assert.Equal(t, "report", op.Resource)
		if op.IsWrite() {
			assert.True(t, strings.HasPrefix(op.Value, fixed.Config.RunID+"-"), op.Value)
		}
	}
}

// tokenless reports no tokens on reads, as a receiver that keeps only the
// value does.
type tokenless struct{ *memory.Fenced }

func (t tokenless) Read(ctx context.Context, resource string) (targets.Reading, error) {
	r, err := t.Fenced.Read(ctx, resource)
	r.HasToken, r.Token = false, 0
	return r, err
}

// TestPriorStateWithoutTokensStopsTheRun: a receiver that holds a value
// under fixed names and cannot say its token cannot be judged (which
// tokens must it reject?): the run stops before any worker writes.
func TestPriorStateWithoutTokensStopsTheRun(t *testing.T) {
	t.Parallel()
	inner := memory.NewFenced()
	_, err := inner.Write(context.Background(), "r0", 17, "left-over")
	require.NoError(t, err)
	faults, _ := nemesis.Parse("pause")
	store := schema.TempDir(t)
	res, err := Run(context.Background(), testConfig(t, tokenless{inner}, "tokenless", func(c *Config) {
		c.Nemesis.Faults, c.Runtime.Seed, c.Workload.Resources, c.Workload.ResourceNames, c.Store.Dir = faults, 1, 2, []string{"r0", "r1"}, store
	}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `observe r0 before the run: it already holds "left-over", and the receiver reports no token on reads`)
	h, err := histories.Read(t.Context(), histories.Source{Path: filepath.Join(res.Dir, runstore.History)})
	require.NoError(t, err)
	for _, op := range h.Expand(nil) {
		assert.False(t, op.IsWrite(), "no worker wrote: %+v", op)
	}
}

// failing answers every write with the same error and finds nothing on
// reads, as a receiver behind a proxy that answers writes with 503 does.
type failing struct{ err error }

func (f failing) Write(context.Context, string, uint64, string) (histories.Outcome, error) {
	return 0, f.err
}
func (f failing) Read(context.Context, string) (targets.Reading, error) {
	return targets.Reading{HasToken: true}, nil
}

// TestNoEvidenceIsNoPass: a run whose every write failed finds no
// violation, and says it tested nothing: inconclusive, quoting the error
// the target gave, not held.
func TestNoEvidenceIsNoPass(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		err  error
		kind string
	}{
		{"unknown outcomes", errors.New("status 503 Service Unavailable: overloaded"), "unknown outcome"},
		{"never applied", fmt.Errorf("%w: pq: relation \"resutls\" does not exist", targets.ErrDefinitelyNotApplied), "failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := runAgainst(t, failing{tc.err}, func(c *Config) { c.Runtime.Seed, c.Workload.Duration = 1, time.Second })
			assert.Equal(t, judge.Inconclusive, res.Verdict)
			assert.Equal(t, judge.GateEvidence, res.Gate)
			assert.Contains(t, res.Reason, "no write was acknowledged")
			assert.Contains(t, res.Reason, tc.kind)
			summary := res.Summary()
			want := strings.TrimPrefix(tc.err.Error(), targets.ErrDefinitelyNotApplied.Error()+": ")
			assert.Contains(t, summary, want, "the summary quotes the target's error")
			assert.NotContains(t, summary, "add pause", "pause was on; the hint must not ask for it")
		})
	}
}

// TestNoStaleWriteIsNoPass: a run that submitted no stale write is
// inconclusive by default, whatever its faults (none included), and names
// the real cause in its own terms; MinStale 0 opts out, and the pass then
// says it tested no stale write.
func TestNoStaleWriteIsNoPass(t *testing.T) {
	t.Parallel()
	always, err := nemesis.ParseScript("0s:+pause,0s:+delay")
	require.NoError(t, err)
	for _, tc := range []struct {
		name     string
		schedule nemesis.Schedule
		cause    string
	}{
		// The random windows open every three lease TTLs: never, in 1 s.
		{"the faults never acted", nil, "the faults that make stale writes never acted: the fault phase ended before they did (lengthen the duration)"},
		// On all the time, but a lease of 10 s never expires in 1 s: a
		// paused worker still owns the resource when it resumes.
		{"no lease expired", always, "fault actions), but no held worker's lease expired and was reassigned while it was held (lengthen the duration or shorten the lease TTL)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			run := func(minStale int) Result {
				faults, err := nemesis.Parse("pause,delay") // faults have state: one set per run
				require.NoError(t, err)
				res, err := Run(context.Background(), testConfig(t, memory.NewFenced(), "memory://fenced", func(c *Config) {
					c.SetLeaseTTL(10 * time.Second)
					// A burst hands leases on early: no burst here,
					// whose point is a lease that never ends.
					c.Workload.Burst = workload.Burst{}
					c.Nemesis.Faults, c.Runtime.Seed, c.Workload.Resources, c.Workload.Duration, c.Workload.Think, c.Gates.MinStale = faults, 1, 1, time.Second, 10*time.Millisecond, minStale
					if tc.schedule != nil {
						c.Nemesis.Schedule = tc.schedule
					}
				}))
				require.NoError(t, err)
				return res
			}
			res := run(1)
			require.Zero(t, res.Coverage.StaleWrites)
			assert.Equal(t, judge.Inconclusive, res.Verdict)
			assert.Contains(t, res.Reason, "0 stale writes were submitted, and a pass needs at least 1: ")
			assert.Contains(t, res.Reason, tc.cause)
			assert.Contains(t, res.Summary(), "NO STALE WRITE WAS SUBMITTED: the protected case was never exercised: ")
			optedOut := run(0)
			assert.Equal(t, judge.Held, optedOut.Verdict)
			assert.Equal(t, "HELD (no stale write tested)", optedOut.Headline())
			assert.Contains(t, optedOut.Summary(), "verdict     HELD (no stale write tested): ")
		})
	}
	t.Run("no fault at all", func(t *testing.T) {
		t.Parallel()
		// Without pause or delay no stale write comes: still no pass.
		assert.Equal(t, 1, DefaultConfig().Gates.MinStale, "one stale write, whatever the faults")
		res, err := Run(context.Background(), testConfig(t, memory.NewFenced(), "memory://fenced", func(c *Config) {
			c.Nemesis.Faults, c.Runtime.Seed, c.Workload.Duration, c.Gates.MinStale = nil, 1, time.Second, DefaultConfig().Gates.MinStale
		}))
		require.NoError(t, err)
		require.Zero(t, res.Coverage.StaleWrites)
		assert.Equal(t, judge.Inconclusive, res.Verdict, res.Reason)
		assert.Equal(t, judge.GateMinStale, res.Gate)
	})
}

// TestInterruptedRunIsNoPass: a run stopped early reports interrupted,
// not held, and leaves a history that reads back.
func TestInterruptedRunIsNoPass(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	tgt := &cancelAfter{Fenced: memory.NewFenced(), writes: 50, cancel: cancel}
	faults, _ := nemesis.Parse("pause")
	res, err := Run(ctx, testConfig(t, tgt, "memory://fenced", func(c *Config) {
		c.Nemesis.Faults, c.Runtime.Seed, c.Workload.Duration = faults, 1, time.Hour
	}))
	require.NoError(t, err)
	assert.Equal(t, judge.Interrupted, res.Verdict, res.Reason)
	assert.Equal(t, judge.GateInterrupted, res.Gate)
	assert.True(t, res.Interrupted)
	h, err := histories.Read(t.Context(), histories.Source{Path: filepath.Join(res.Dir, runstore.History)})
	require.NoError(t, err)
	assert.Equal(t, res.Counts, h.Count())
	_, err = os.Stat(filepath.Join(res.Dir, runstore.Result))
	assert.NoError(t, err)
}

// cancelAfter cancels the run after a number of writes: an interruption
// driven by what the run did, not by a timer.
type cancelAfter struct {
	*memory.Fenced
	writes int
	cancel context.CancelFunc
}

func (c *cancelAfter) Write(ctx context.Context, resource string, token uint64, value string) (histories.Outcome, error) {
	if c.writes--; c.writes == 0 {
		c.cancel()
	}
	return c.Fenced.Write(ctx, resource, token, value)
}

// slowStart fails its first reads, as a receiver just started on a
// loaded machine does before it answers.
type slowStart struct {
	*memory.Fenced
	failing atomic.Int32
}

func (s *slowStart) Read(ctx context.Context, resource string) (targets.Reading, error) {
	if s.failing.Add(-1) >= 0 {
		return targets.Reading{}, errors.New("context deadline exceeded")
	}
	return s.Fenced.Read(ctx, resource)
}

// TestObservingAReceiverThatIsSlowToStart: the reads before the run are
// asked again when they get no answer, so a receiver slow to answer its
// first requests is run, not refused; one that never answers stops the
// run, saying how often it was asked.
func TestObservingAReceiverThatIsSlowToStart(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		failing int32
		err     string
	}{
		{"answers on the last attempt", observeAttempts - 1, ""},
		{"never answers", 1 << 20, "observe r0 before the run: the read failed 5 times, the last: context deadline exceeded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tgt := &slowStart{Fenced: memory.NewFenced()}
			tgt.failing.Store(tc.failing)
			faults, _ := nemesis.Parse("pause")
			res, err := Run(context.Background(), testConfig(t, tgt, "slow-start", func(c *Config) {
				c.Nemesis.Faults, c.Runtime.Seed, c.Workload.Resources, c.Workload.ResourceNames, c.Store.Dir = faults, 1, 2, []string{"r0", "r1"}, schema.TempDir(t)
			}))
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.NotEqual(t, judge.Violated, res.Verdict, res.Reason)
		})
	}
}
