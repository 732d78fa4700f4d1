package replay

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/fencecheck/fencecheck/check"
	"github.com/fencecheck/fencecheck/harness"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/lease"
	"github.com/fencecheck/fencecheck/model"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/sched"
	"github.com/fencecheck/fencecheck/targets"
	"github.com/fencecheck/fencecheck/workload"
)

// StrategyRow is one client strategy's line of the replay's strategy
// table: the five-step timeline played by the workers' own job logic
// (workload.Pool.RunJob) with that strategy, against one receiver, on the
// simulated clock. Nothing in it is written by hand: A's answer, the final
// value, the verdict and the measures are what the run produced.
type StrategyRow struct {
	Strategy string `json:"strategy"`
	Receiver string `json:"receiver"` // "unfenced" or "fenced"
	// AWrite is what became of A's old result (step 4): accepted,
	// rejected, or not sent (A abandoned its job).
	AWrite string `json:"a_write"`
	// Final is the value the resource holds at the end, after B's
	// repeat (step 5), as whose result.
	Final string `json:"final_value"`
	// StaleAccepted counts the writes accepted although a higher token
	// had been accepted before they were sent.
	StaleAccepted int `json:"stale_writes_accepted"`
	// Verdict is the checker's, under the accept-equal policy: the
	// article's resource accepts B's repeat (step 5) by design.
	Verdict string `json:"verdict"`
	workload.Metrics
	// Trace names the row's history in the replay output.
	Trace string `json:"trace"`
}

// strategyConfig gives the strategy timeline a default run's timings
// (harness.DefaultConfig): the lease, the think time, the simulated
// network latency, the renewal interval and the longer lease's multiplier.
func strategyConfig(s workload.Strategy) harness.Config {
	c := harness.DefaultConfig()
	c.Workload.Strategy = s
	return c
}

// timelineSeed seeds the strategy timeline's scheduler and random
// choices (think times, network latency). With 4, A thinks long enough
// to renew once (at 33 ms) under renew before it pauses: the trace shows
// a renewal, then none while A is held.
const timelineSeed = 4

// strategyTimeline plays the five steps with strategy s against t:
//
//  1. A (worker 0) takes the lease, token 41, reads and prepares its
//     result; B (worker 1) asks for the lease 1 ms later and waits.
//  2. A stops at its pause point until B has written: the script holds
//     it there, and its lease runs out by its own TTL (a longer one
//     later; a renewing A cannot renew while held).
//  3. B gets the lease, token 42, reads, prepares and writes.
//  4. A resumes and writes its old result.
//  5. B writes its result again, once A's write was answered.
//
// Each worker does what its strategy does on the way (renew, check
// before the pause point, send its token or not).
func strategyTimeline(ctx context.Context, s workload.Strategy, t targets.Target) (*Trace, StrategyRow, error) {
	cfg := strategyConfig(s)
	sim := sched.NewSim(timelineSeed)
	rec := histories.NewRecorder(io.Discard, histories.RecorderOptions{Clock: sim, Retain: true})
	life, end := context.WithCancel(ctx)
	defer end()
	leases := lease.NewLocal(life, sim, rec, cfg.IssuedTTL())
	leases.StartAbove(Resource, OldToken-1)
	sc := &script{rec: rec, aDone: sim.NewGate(), hold: 100 * cfg.Leases.TTL}
	pool, err := workload.New(workload.Config{Workers: 2, Resources: []string{Resource}, Think: cfg.Workload.Think, OpTimeout: cfg.Workload.OpTimeout,
		Latency: cfg.Runtime.Latency, Strategy: s, RenewEvery: cfg.Workload.RenewEvery},
		workload.Run{Runtime: sim, Recorder: rec, Rand: sched.NewRand(timelineSeed), Leases: leases, Target: t,
			Pausers: []nemesis.Pauser{sc}, Deliverers: []nemesis.Deliverer{sc}, Life: life})
	if err != nil {
		return nil, StrategyRow{}, err
	}
	sc.pool = pool
	var final histories.Event
	err = sim.Run(func() {
		g := sched.NewGroup(sim)
		g.Go(func() {
			_, _ = pool.RunJob(ctx, workerA, Resource, false)
			sc.aDone.Open()
		})
		g.Go(func() {
			if sim.Sleep(ctx, time.Millisecond) == nil {
				_, _ = pool.RunJob(ctx, workerB, Resource, true)
			}
		})
		g.Wait(ctx, 0)
		pool.Settle(cfg.Workload.OpTimeout)
		proc := processObserver
		final = pool.ReadOnce(ctx, &proc, Resource)
		end()
	})
	if cerr := rec.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, StrategyRow{}, err
	}
	tr := &Trace{Events: rec.Events()}
	row, err := judgeStrategy(ctx, s, tr.Events, pool.Jobs(), final)
	return tr, row, err
}

// judgeStrategy fills a row from what the timeline recorded.
func judgeStrategy(ctx context.Context, s workload.Strategy, events []histories.Event, jobs []workload.Job, final histories.Event) (StrategyRow, error) {
	h, err := histories.Pair(events)
	if err != nil {
		return StrategyRow{}, err
	}
	res, err := check.Check(ctx, h, check.Options{Policy: model.AcceptEqual})
	if err != nil {
		return StrategyRow{}, err
	}
	ops := h.Expand(nil)
	row := StrategyRow{Strategy: s.String(), AWrite: "not sent (A abandoned its job)", StaleAccepted: staleAccepted(ops),
		Verdict: string(res.Verdict), Final: whose(final)}
	for i := range ops {
		if op := &ops[i]; op.IsWrite() && op.Token == OldToken {
			row.AWrite = op.Status.String()
			break
		}
	}
	var ends []workload.LeaseEnd
	for _, e := range h.Others {
		if e.Actor == histories.ActorLease && (e.F == histories.FExpire || e.F == histories.FRevoke) {
			ends = append(ends, workload.LeaseEnd{Resource: e.Resource, Token: e.Token, Time: e.Time})
		}
	}
	row.Metrics = workload.Measure(jobs, ends)
	return row, nil
}

// staleAccepted counts the accepted writes sent after a write with a
// higher token had been accepted and answered.
func staleAccepted(ops []histories.Operation) int {
	n := 0
	for i := range ops {
		w := &ops[i]
		if !w.IsWrite() || w.Status != histories.StatusAccepted {
			continue
		}
		for j := range ops {
			v := &ops[j]
			if v.IsWrite() && v.Status == histories.StatusAccepted && v.Token > w.Token && v.Return < w.Call {
				n++
				break
			}
		}
	}
	return n
}

// whose says whose result a final read returned.
func whose(read histories.Event) string {
	switch {
	case read.Type != histories.TypeOK:
		return "(unknown)"
	case !read.HasValue:
		return "(never written)"
	case strings.HasPrefix(read.Value, fmt.Sprintf("w%d-", workerA)):
		return "A's old result"
	case strings.HasPrefix(read.Value, fmt.Sprintf("w%d-", workerB)):
		return "B's new result"
	}
	return read.Value
}

// script is the timeline's nemesis: it holds A at its pause point until
// B's write was accepted, without ending A's lease (its TTL does that),
// and delivers B's repeat only once A's write was answered, so that the
// steps keep the article's order.
type script struct {
	rec   *histories.Recorder
	pool  *workload.Pool
	aDone sched.Gate    // A's write was answered, or A's job ended
	hold  time.Duration // bounds the pause, should B never write
}

func (sc *script) record(f, fault, detail string) {
	sc.rec.Record(&histories.Event{Process: -1, Actor: histories.ActorNemesis, F: f, Fault: fault, Detail: detail})
}

// Pause implements nemesis.Pauser.
func (sc *script) Pause(ctx context.Context, _ nemesis.Env, pp nemesis.PausePoint) {
	if pp.Worker != workerA {
		return
	}
	sc.record(histories.FBegin, "pause", fmt.Sprintf("worker A pauses after preparing its write with token %d; it cannot renew or see its lease end", pp.Token))
	sc.pool.NewerAccepted(pp.Resource, pp.Token).Wait(ctx, sc.hold)
	sc.record(histories.FEnd, "pause", "worker A resumes")
}

// Deliver implements nemesis.Deliverer.
func (sc *script) Deliver(ctx context.Context, _ nemesis.Env, w nemesis.Write, send nemesis.Send) (histories.Outcome, error) {
	switch {
	case w.Worker == workerA:
		defer sc.aDone.Open()
	case w.Worker == workerB && strings.HasSuffix(w.Value, "-again"):
		sc.aDone.Wait(ctx, sc.hold)
	}
	return send(ctx)
}

// strategyTable plays the timeline with every strategy against both
// receivers.
func strategyTable(ctx context.Context, rc Receivers) ([]StrategyRow, []Trace, error) {
	var rows []StrategyRow
	var traces []Trace
	for _, s := range workload.Strategies() {
		for _, r := range []struct {
			name string
			make func() targets.Target
		}{{"unfenced", rc.Unfenced}, {"fenced", rc.Fenced}} {
			tr, row, err := strategyTimeline(ctx, s, r.make())
			if err != nil {
				return nil, nil, fmt.Errorf("strategy %s against the %s receiver: %w", s, r.name, err)
			}
			tr.Name = "strategy-" + s.String() + "-" + r.name
			tr.Title = fmt.Sprintf("the five steps with client strategy %s against the %s receiver", s, r.name)
			row.Receiver, row.Trace = r.name, tr.Name
			rows = append(rows, row)
			traces = append(traces, *tr)
		}
	}
	return rows, traces, nil
}
