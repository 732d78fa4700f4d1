// Package replay reproduces the article's local deterministic model: a single
// report-generation job, worker A with token 41 and worker B with token 42,
// run against a receiver without fencing and one with it, plus the case in
// which A's old token reaches the resource before B's newer one.
//
// It is not a lock service and not a consensus algorithm; like the article, it
// implements only the resource-side comparison, and shows both what that
// comparison protects and what it does not.
package replay

import (
	"context"
	"fmt"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/targets"
)

// The seed's cast.
const (
	Resource  = "report"
	OldToken  = 41 // worker A
	NewToken  = 42 // worker B
	OldResult = "old-result"
	NewResult = "new-result"

	processA        = 0
	processB        = 1
	processObserver = 2
	workerA         = 0
	workerB         = 1
)

// Row is one step of the article's timeline table, with the consequence the
// receiver actually produced, without and with fencing.
type Row struct {
	Step           int    `json:"step"`
	Event          string `json:"event"`
	WithoutFencing string `json:"without_fencing"`
	WithFencing    string `json:"with_fencing"`
}

// Trace is one case's event trace in the history format.
type Trace struct {
	Name   string // file name without extension
	Title  string
	Events []histories.Event
}

// Report is everything a replay produced.
type Report struct {
	UnfencedFinal string
	FencedFinal   string
	RepeatedToken histories.Outcome // step 5 on the fenced receiver
	OldTokenFirst histories.Outcome // A's 41 reaching the resource before B's 42
	Comparison    []Row
	Traces        []Trace
	// Strategies is the timeline played by each client strategy against
	// each receiver (see StrategyRow); StrategyTraces their histories.
	Strategies     []StrategyRow
	StrategyTraces []Trace
}

// Receivers makes fresh receivers for each case.
type Receivers struct {
	Fenced   func() targets.Target
	Unfenced func() targets.Target
	_        struct{} // keyed fields only: the struct may grow
}

// Run replays every case. Each case starts from a fresh receiver.
func Run(ctx context.Context, rc Receivers) (*Report, error) {
	rep := &Report{}

	unfenced, err := timeline(ctx, rc.Unfenced(), 4)
	if err != nil {
		return nil, fmt.Errorf("unfenced case: %w", err)
	}
	fenced, err := timeline(ctx, rc.Fenced(), 4)
	if err != nil {
		return nil, fmt.Errorf("fenced case: %w", err)
	}
	repeated, err := timeline(ctx, rc.Fenced(), 5)
	if err != nil {
		return nil, fmt.Errorf("repeated-token case: %w", err)
	}
	unfencedAll, err := timeline(ctx, rc.Unfenced(), 5)
	if err != nil {
		return nil, fmt.Errorf("unfenced comparison: %w", err)
	}
	oldFirst, err := oldTokenFirst(ctx, rc.Fenced())
	if err != nil {
		return nil, fmt.Errorf("old-token-first case: %w", err)
	}

	if rep.Strategies, rep.StrategyTraces, err = strategyTable(ctx, rc); err != nil {
		return nil, err
	}
	rep.UnfencedFinal = unfenced.final
	rep.FencedFinal = fenced.final
	rep.RepeatedToken = repeated.outcomes[5]
	rep.OldTokenFirst = oldFirst.outcome
	rep.Comparison = compare(unfencedAll, repeated)
	rep.Traces = []Trace{
		{Name: "unfenced", Title: "steps 1-4 against a receiver that ignores tokens", Events: unfenced.tr.events},
		{Name: "fenced", Title: "steps 1-4 against the fenced receiver", Events: fenced.tr.events},
		{Name: "repeated-token", Title: "steps 1-5 against the fenced receiver: B repeats token 42", Events: repeated.tr.events},
		{Name: "old-token-first", Title: "A's token 41 reaches the resource before B's token 42", Events: oldFirst.tr.events},
	}
	return rep, nil
}

type run struct {
	tr       tracer
	outcomes map[int]histories.Outcome
	final    string
}

// timeline plays the article's steps 1..last against t and ends with a read
// by an observer, whose value is the case's final value.
func timeline(ctx context.Context, t targets.Target, last int) (*run, error) {
	r := &run{outcomes: make(map[int]histories.Outcome)}
	tr := &r.tr
	// 1. A receives token 41 and reads its input.
	tr.at(1)
	tr.lease(histories.FAcquire, Resource, OldToken, workerA, "worker A receives token 41")
	if _, err := tr.read(ctx, t, processA, Resource); err != nil {
		return nil, err
	}
	// 2. A pauses; its lease expires.
	tr.at(2)
	tr.nemesis(histories.FStart, "pause", "worker A pauses after preparing its write")
	tr.lease(histories.FExpire, Resource, OldToken, workerA, "worker A's lease expires")
	// 3. B receives token 42 and writes a new result.
	tr.at(3)
	tr.lease(histories.FAcquire, Resource, NewToken, workerB, "worker B receives token 42")
	out, err := tr.write(ctx, t, processB, Resource, NewToken, NewResult)
	if err != nil {
		return nil, err
	}
	r.outcomes[3] = out
	// 4. A resumes and submits its old result with 41.
	tr.at(4)
	tr.nemesis(histories.FStop, "pause", "worker A resumes")
	if out, err = tr.write(ctx, t, processA, Resource, OldToken, OldResult); err != nil {
		return nil, err
	}
	r.outcomes[4] = out
	// 5. B submits the same result again with 42.
	if last >= 5 {
		tr.at(5)
		if out, err = tr.write(ctx, t, processB, Resource, NewToken, NewResult); err != nil {
			return nil, err
		}
		r.outcomes[5] = out
	}
	tr.at(last + 1)
	reading, err := tr.read(ctx, t, processObserver, Resource)
	if err != nil {
		return nil, err
	}
	r.final = finalValue(reading)
	return r, nil
}

type limitRun struct {
	tr      tracer
	outcome histories.Outcome
}

// oldTokenFirst is the article's critical limit: A's write with 41 is already
// traveling when its lease expires, and reaches the resource before B's
// write with 42 does. The resource has not yet seen 42, so it accepts 41.
func oldTokenFirst(ctx context.Context, t targets.Target) (*limitRun, error) {
	r := &limitRun{}
	tr := &r.tr
	tr.at(1)
	tr.lease(histories.FAcquire, Resource, OldToken, workerA, "worker A receives token 41")
	if _, err := tr.read(ctx, t, processA, Resource); err != nil {
		return nil, err
	}
	tr.invokeWrite(processA, Resource, OldToken, OldResult)
	tr.at(2)
	tr.nemesis(histories.FStart, "delay", "worker A's write with token 41 is delayed on its way to the resource")
	tr.lease(histories.FExpire, Resource, OldToken, workerA, "worker A's lease expires")
	tr.at(3)
	tr.lease(histories.FAcquire, Resource, NewToken, workerB, "worker B receives token 42")
	tr.invokeWrite(processB, Resource, NewToken, NewResult)
	tr.at(4)
	tr.nemesis(histories.FStop, "delay", "worker A's write reaches the resource before B's")
	out, err := tr.deliverWrite(ctx, t, processA, Resource, OldToken, OldResult)
	if err != nil {
		return nil, err
	}
	r.outcome = out
	tr.at(5)
	if _, err := tr.deliverWrite(ctx, t, processB, Resource, NewToken, NewResult); err != nil {
		return nil, err
	}
	tr.at(6)
	if _, err := tr.read(ctx, t, processObserver, Resource); err != nil {
		return nil, err
	}
	return r, nil
}

func finalValue(r targets.Reading) string {
	if !r.Found {
		return "(never written)"
	}
	return r.Value
}
