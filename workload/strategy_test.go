package workload_test

import (
	"context"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/lease"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/sched"
	"github.com/fencecheck/fencecheck/targets"
	"github.com/fencecheck/fencecheck/targets/memory"
	"github.com/fencecheck/fencecheck/workload"
)

// spyTarget is the unfenced receiver, counting which way writes came.
type spyTarget struct {
	*memory.Unfenced
	mu                 sync.Mutex
	withToken, without int
}

func (s *spyTarget) Write(ctx context.Context, resource string, token uint64, value string) (histories.Outcome, error) {
	s.mu.Lock()
	s.withToken++
	s.mu.Unlock()
	return s.Unfenced.Write(ctx, resource, token, value)
}

func (s *spyTarget) WriteWithoutToken(ctx context.Context, resource, value string) (histories.Outcome, error) {
	s.mu.Lock()
	s.without++
	s.mu.Unlock()
	return s.Unfenced.WriteWithoutToken(ctx, resource, value)
}

// sleeper holds every worker at its pause point for a fixed time.
type sleeper time.Duration

func (d sleeper) Pause(ctx context.Context, env nemesis.Env, _ nemesis.PausePoint) {
	_ = env.Runtime().Sleep(ctx, time.Duration(d))
}

// simEnv is the little of nemesis.Env a sleeper needs.
type simEnv struct {
	nemesis.Env
	rt sched.Runtime
}

func (e simEnv) Runtime() sched.Runtime { return e.rt }

type strategyRun struct {
	events []histories.Event
	jobs   []workload.Job
	target *spyTarget
}

// runStrategy runs a pool of cfg.Strategy on the deterministic runtime
// with 100 ms leases against the spy target.
func runStrategy(t *testing.T, cfg workload.Config, seed uint64, pausers ...nemesis.Pauser) strategyRun {
	t.Helper()
	sim := sched.NewSim(seed)
	rec := histories.NewRecorder(io.Discard, histories.RecorderOptions{Clock: sim, Retain: true})
	life, end := context.WithCancel(context.Background())
	defer end()
	leases := lease.NewLocal(life, sim, rec, 100*time.Millisecond)
	tgt := &spyTarget{Unfenced: memory.NewUnfenced()}
	pool, err := workload.New(cfg, workload.Run{Runtime: sim, Recorder: rec, Rand: sched.NewRand(seed), Leases: leases,
		Target: tgt, Pausers: pausers, Env: simEnv{rt: sim}, Life: life})
	require.NoError(t, err)
	require.NoError(t, sim.Run(func() {
		pool.Start(context.Background()).Wait(context.Background(), 0)
		pool.Settle(time.Second)
		end()
	}))
	require.NoError(t, rec.Close())
	return strategyRun{events: rec.Events(), jobs: pool.Jobs(), target: tgt}
}

func strategyConfig(s workload.Strategy) workload.Config {
	cfg := baseConfig()
	cfg.Strategy, cfg.RenewEvery = s, 30*time.Millisecond
	return cfg
}

// TestOnlyFencingSendsTheToken: fencing workers send every write with its
// token, the others none; every write's invocation carries its lease's
// token either way, and the reads of a strategy that does not fence carry
// no token.
func TestOnlyFencingSendsTheToken(t *testing.T) {
	t.Parallel()
	for _, s := range workload.Strategies() {
		t.Run(s.String(), func(t *testing.T) {
			t.Parallel()
			r := runStrategy(t, strategyConfig(s), 11)
			granted := grants(r.events)
			writes, reads := 0, 0
			for _, e := range r.events {
				if e.Actor != "" {
					continue
				}
				switch {
				case e.F == histories.FWrite && e.Type == histories.TypeInvoke:
					writes++
					assert.True(t, e.HasToken)
					assert.True(t, granted[grant{e.Resource, e.Token}], "write %d: token %d on %s was never granted", e.Index, e.Token, e.Resource)
				case e.F == histories.FRead && e.Type == histories.TypeOK:
					reads++
					assert.Equal(t, s.Fences(), e.HasToken, "read %d", e.Index)
				}
			}
			require.NotZero(t, writes)
			require.NotZero(t, reads)
			if s.Fences() {
				assert.Equal(t, [2]int{writes, 0}, [2]int{r.target.withToken, r.target.without})
			} else {
				assert.Equal(t, [2]int{0, writes}, [2]int{r.target.withToken, r.target.without})
			}
		})
	}
}

// TestRenewKeepsALiveWorkersLease: jobs that think for one to three
// lease TTLs lose their leases by the TTL unless they renew: without
// renewal every job's lease is taken from a live worker, with it none is.
func TestRenewKeepsALiveWorkersLease(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		s           workload.Strategy
		unnecessary bool
	}{{workload.None, true}, {workload.Renew, false}} {
		t.Run(tc.s.String(), func(t *testing.T) {
			t.Parallel()
			cfg := strategyConfig(tc.s)
			cfg.Think = 200 * time.Millisecond // twice the lease
			r := runStrategy(t, cfg, 12)
			m := workload.Measure(r.jobs, leaseEnds(r.events))
			renews := countLease(r.events, histories.FRenew)
			if tc.unnecessary {
				assert.Positive(t, m.UnnecessaryReassignments)
				assert.Zero(t, renews)
			} else {
				assert.Zero(t, m.UnnecessaryReassignments)
				assert.Positive(t, renews)
			}
		})
	}
}

// TestAPausedWorkerDoesNotRenew: a worker held at its pause point for
// three lease TTLs sends no renewal while held, so its lease runs out
// during the pause (not a reassignment from a live worker), and it writes
// anyway when it resumes: it could not observe its loss.
func TestAPausedWorkerDoesNotRenew(t *testing.T) {
	t.Parallel()
	cfg := strategyConfig(workload.Renew)
	cfg.Workers = 1
	r := runStrategy(t, cfg, 13, sleeper(300*time.Millisecond))
	require.NotEmpty(t, r.jobs)
	ends := leaseEnds(r.events)
	for _, j := range r.jobs {
		if !j.Wrote {
			continue
		}
		for _, e := range r.events {
			if e.Actor == histories.ActorLease && e.F == histories.FRenew && e.Resource == j.Resource && e.Token == j.Token {
				assert.False(t, e.Time > j.PausedFrom && e.Time < j.PausedTo, "renewed token %d at %d while paused %d–%d", j.Token, e.Time, j.PausedFrom, j.PausedTo)
			}
		}
		ended := false
		for _, e := range ends {
			if e.Resource == j.Resource && e.Token == j.Token {
				ended = true
				assert.True(t, e.Time > j.PausedFrom && e.Time <= j.PausedTo, "token %d ran out at %d, outside the pause %d–%d", j.Token, e.Time, j.PausedFrom, j.PausedTo)
			}
		}
		assert.True(t, ended, "token %d outlived a 300 ms pause", j.Token)
	}
	m := workload.Measure(r.jobs, ends)
	assert.Zero(t, m.UnnecessaryReassignments)
	assert.Positive(t, m.Jobs, "the paused workers still wrote")
}

// TestCheckBeforeWriteAbandonsALostLease: a worker that asks the issuer
// before writing gives up the jobs whose lease ran out while it thought,
// and writes only with a lease the issuer said was held.
func TestCheckBeforeWriteAbandonsALostLease(t *testing.T) {
	t.Parallel()
	cfg := strategyConfig(workload.CheckBeforeWrite)
	cfg.Think = 100 * time.Millisecond // half to one and a half leases
	r := runStrategy(t, cfg, 14)
	m := workload.Measure(r.jobs, leaseEnds(r.events))
	assert.Positive(t, m.Abandoned)
	assert.Positive(t, m.Jobs)
	for _, j := range r.jobs {
		assert.False(t, j.Abandoned && j.Wrote, "job of token %d both abandoned and written", j.Token)
	}
	none := runStrategy(t, strategyConfig(workload.None), 14)
	assert.Zero(t, workload.Measure(none.jobs, nil).Abandoned, "only a strategy that looks abandons")
}

func TestEveryStrategyIsDeterministic(t *testing.T) {
	t.Parallel()
	for _, s := range workload.Strategies() {
		t.Run(s.String(), func(t *testing.T) {
			t.Parallel()
			a, b := runStrategy(t, strategyConfig(s), 15), runStrategy(t, strategyConfig(s), 15)
			assert.Equal(t, a.events, b.events)
			assert.Equal(t, a.jobs, b.jobs)
		})
	}
}

// noCapabilities is a lease service with nothing but the Service
// methods, and a target with nothing but the Target methods.
type (
	plainLeases struct{ lease.Service }
	plainTarget struct{ targets.Target }
)

func TestCheckStrategyNamesWhatIsMissing(t *testing.T) {
	t.Parallel()
	leases, tgt := lease.NewLocal(context.Background(), sched.NewReal(), nil, time.Second), memory.NewFenced()
	for _, tc := range []struct {
		s      workload.Strategy
		leases lease.Service
		target targets.Target
		want   string
	}{
		{workload.Fencing, plainLeases{leases}, plainTarget{tgt}, ""},
		{workload.None, leases, tgt, ""},
		{workload.None, leases, plainTarget{tgt}, "client strategy none writes without a token, and the target cannot"},
		{workload.Renew, plainLeases{leases}, tgt, "client strategy renew renews leases, and the lease service cannot"},
		{workload.CheckBeforeWrite, plainLeases{leases}, tgt, "client strategy check-before-write asks whether a lease is held, and the lease service cannot"},
	} {
		t.Run(tc.s.String()+"/"+tc.want, func(t *testing.T) {
			err := workload.CheckStrategy(tc.s, tc.leases, tc.target)
			if tc.want == "" {
				assert.NoError(t, err)
			} else {
				assert.ErrorContains(t, err, tc.want)
			}
		})
	}
}

func TestParseStrategy(t *testing.T) {
	t.Parallel()
	for _, s := range workload.Strategies() {
		got, err := workload.ParseStrategy(s.String())
		require.NoError(t, err)
		assert.Equal(t, s, got)
	}
	_, err := workload.ParseStrategy("lock")
	assert.ErrorContains(t, err, `unknown client strategy "lock" (want one of none, longer-lease, renew, check-before-write, fencing)`)
	assert.Equal(t, workload.Fencing, workload.Strategy(0), "the zero strategy is the workers' behaviour before strategies")
}

// leaseEnds are the ends of leases in events; here nothing is the
// nemesis's.
func leaseEnds(events []histories.Event) []workload.LeaseEnd {
	var out []workload.LeaseEnd
	for _, e := range events {
		if e.Actor == histories.ActorLease && (e.F == histories.FExpire || e.F == histories.FRevoke) {
			out = append(out, workload.LeaseEnd{Resource: e.Resource, Token: e.Token, Time: e.Time})
		}
	}
	return out
}

func countLease(events []histories.Event, f string) int {
	n := 0
	for _, e := range events {
		if e.Actor == histories.ActorLease && e.F == f {
			n++
		}
	}
	return n
}

// TestAFailedRenewalAbandonsTheJob: renewing less often than the lease
// lasts, a worker learns from its first renewal that the lease ran out
// while it thought, and gives up the job instead of writing.
func TestAFailedRenewalAbandonsTheJob(t *testing.T) {
	t.Parallel()
	cfg := strategyConfig(workload.Renew)
	cfg.RenewEvery, cfg.Think = 150*time.Millisecond, 400*time.Millisecond
	r := runStrategy(t, cfg, 16)
	m := workload.Measure(r.jobs, leaseEnds(r.events))
	assert.Positive(t, m.Abandoned)
	assert.Zero(t, m.Jobs, "every job thinks past its lease and its first renewal")
}
