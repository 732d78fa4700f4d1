// Package histgen generates fenced-register histories for tests and
// benchmarks of the checkers in package check.
//
// A history is made by simulation, so that its verdict is known by
// construction: clients issue operations with random intervals, every
// operation gets a random linearization point inside its interval, and the
// operations are applied to a fenced register in the order of those points.
// The outcomes and read values that the register produces are therefore
// linearizable. Invalid histories are made from valid ones by corrupting a
// few answers (Corrupt), or by one corruption that is certainly a violation
// (BreakStaleRead).
//
// The package depends on histories only, not on model, check or explain,
// so that the tests inside any of them can use it without an import cycle.
package histgen

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/fencecheck/fencecheck/histories"
)

// Config shapes a generated history. Times are in abstract units (the
// history format's nanoseconds).
type Config struct {
	Resources int // resources, each a separate register; at least 1
	Clients   int // clients running concurrently; at least 1
	Ops       int // operations in total

	ReadRatio    float64 // probability that an operation is a read
	Unknown      float64 // probability that a write's outcome is unknown (info)
	UnknownReads float64 // probability that a read's outcome is unknown
	Failed       float64 // probability that an operation fails (no effect)
	// Acquire is the probability that a write acquires a fresh token (the
	// next of its resource) rather than reusing the client's last one;
	// reuse makes repeats of the current token and stale writes.
	Acquire float64
	// Tokens, when positive, replaces lease-like tokens by tokens drawn
	// uniformly from [0, Tokens), which makes equal and zero tokens common.
	Tokens int
	// ReportToken is the probability that a read reports the token.
	ReportToken float64

	// EqualAccepted is the probability that the register accepts a write
	// whose token equals its highest (0 while it was never written): 0
	// makes a strict receiver, 1 one that always accepts repeats, and
	// anything between a receiver that mixes both answers. Every history
	// is legal under accept-equal, which allows either answer there;
	// under strict, only while no repeat was accepted.
	EqualAccepted float64

	// Initial is the probability that a resource held state before the
	// run: a value and a token (1 to 3) that the history states as an
	// Initial operation, which the register starts from and tokens are
	// issued above.
	Initial float64

	// Duration and Gap bound an operation's length and the pause before a
	// client's next operation; both are drawn uniformly from [0, bound].
	// Small bounds make intervals that touch, which closed intervals must
	// treat as concurrent.
	Duration int64
	Gap      int64
}

// Small returns a configuration for differential tests: few operations on
// a few resources, small times with many ties, tokens with many repeats,
// and a strict receiver, one that accepts every repeat, or one that mixes
// both answers, each a third of the time.
func Small(r *rand.Rand) Config {
	return Config{
		Resources:     1 + r.IntN(3),
		Clients:       1 + r.IntN(4),
		Ops:           1 + r.IntN(12),
		ReadRatio:     r.Float64() * 0.6,
		Unknown:       r.Float64() * 0.5,
		UnknownReads:  r.Float64() * 0.2,
		Failed:        r.Float64() * 0.1,
		Acquire:       r.Float64(),
		Tokens:        []int{0, 2, 3, 5}[r.IntN(4)],
		ReportToken:   r.Float64(),
		EqualAccepted: []float64{0, 1, r.Float64()}[r.IntN(3)],
		Duration:      int64(r.IntN(6)),
		Gap:           int64(r.IntN(4)),
	}
}

// op is an operation under construction.
type op struct {
	histories.Operation
	client int
	lin    int64  // linearization point
	tie    uint64 // breaks ties between equal points at random
	fate   fate
	reach  bool // an unknown write: whether it reached the resource
}

// fate is how an operation ends, decided before the simulation answers it.
type fate uint8

const (
	completes fate = iota
	fails
	vanishes // unknown outcome
)

// register is the simulated resource.
type register struct {
	token   uint64
	value   string
	written bool
}

// Generate returns the operations of a valid history in order of
// invocation, with IDs set. Unknown operations have Return = Infinity, as
// histories.Pair makes them.
func Generate(r *rand.Rand, cfg Config) []histories.Operation {
	ops := schedule(r, cfg)
	initial := initialStates(r, cfg)
	assignTokens(r, cfg, ops, initial)
	simulate(r, cfg, ops, initial)
	return finish(append(initial, ops...))
}

// initialStates draws the state each resource held before the run, as
// Initial operations; none unless cfg.Initial is positive.
func initialStates(r *rand.Rand, cfg Config) []op {
	if cfg.Initial <= 0 {
		return nil
	}
	var out []op
	for i := range max(cfg.Resources, 1) {
		if r.Float64() >= cfg.Initial {
			continue
		}
		o := op{client: -1, lin: histories.InitialTime}
		name := fmt.Sprintf("r%d", i)
		o.Operation = histories.Operation{Process: -1, F: histories.FWrite, Resource: name, Token: 1 + uint64(r.IntN(3)), HasToken: true,
			Value: name + "-initial", HasValue: true, Status: histories.StatusAccepted, Call: histories.InitialTime, Return: histories.InitialTime, Initial: true}
		out = append(out, o)
	}
	return out
}

// schedule lays out each client's operations one after another and picks
// their kinds, resources and linearization points.
func schedule(r *rand.Rand, cfg Config) []op {
	clients := max(cfg.Clients, 1)
	resources := max(cfg.Resources, 1)
	free := make([]int64, clients)
	process := make([]int, clients)
	for c := range process {
		process[c] = c
	}
	nextProcess := clients
	// One string per resource name, as the history reader makes them
	// (it interns names): operations share their resource's.
	names := make([]string, resources)
	for i := range names {
		names[i] = fmt.Sprintf("r%d", i)
	}
	ops := make([]op, 0, cfg.Ops)
	for i := range cfg.Ops {
		c := i % clients
		call := free[c] + r.Int64N(cfg.Gap+1)
		ret := call + r.Int64N(cfg.Duration+1)
		o := op{client: c, lin: call + r.Int64N(ret-call+1), tie: r.Uint64()}
		o.Process = process[c]
		o.Resource = names[r.IntN(resources)]
		o.Call, o.Return = call, ret
		o.F = histories.FWrite
		if r.Float64() < cfg.ReadRatio {
			o.F = histories.FRead
		}
		unknown := cfg.Unknown
		if o.F == histories.FRead {
			unknown = cfg.UnknownReads
		}
		switch x := r.Float64(); {
		case x < cfg.Failed:
			o.fate = fails
		case x < cfg.Failed+unknown:
			o.fate = vanishes
			o.reach = r.IntN(2) == 0
			// The client continues under a new process id: the old
			// operation may still be in flight.
			process[c] = nextProcess
			nextProcess++
		}
		free[c] = ret
		ops = append(ops, o)
	}
	return ops
}

// assignTokens gives each write a token. Lease-like tokens are issued in
// order of invocation: a write acquires the next token of its resource or
// reuses its client's last one, so old clients write stale tokens.
func assignTokens(r *rand.Rand, cfg Config, ops []op, initial []op) {
	order := make([]int, len(ops))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(ops[a].Call, ops[b].Call) })
	type key struct {
		client   int
		resource string
	}
	held := make(map[key]uint64)
	issued := make(map[string]uint64)
	for _, o := range initial {
		issued[o.Resource] = o.Token
	}
	for n, i := range order {
		o := &ops[i]
		if o.F != histories.FWrite {
			continue
		}
		o.Value = fmt.Sprintf("%s-v%d", o.Resource, n)
		o.HasToken, o.HasValue = true, true
		if cfg.Tokens > 0 {
			o.Token = uint64(r.IntN(cfg.Tokens))
			continue
		}
		k := key{o.client, o.Resource}
		t, ok := held[k]
		if !ok || r.Float64() < cfg.Acquire {
			issued[o.Resource]++
			t = issued[o.Resource]
			held[k] = t
		}
		o.Token = t
	}
}

// simulate applies the operations in order of their linearization points
// and records the register's answers.
func simulate(r *rand.Rand, cfg Config, ops []op, initial []op) {
	order := make([]int, len(ops))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		if c := cmp.Compare(ops[a].lin, ops[b].lin); c != 0 {
			return c
		}
		return cmp.Compare(ops[a].tie, ops[b].tie)
	})
	regs := make(map[string]*register)
	for _, o := range initial {
		regs[o.Resource] = &register{token: o.Token, value: o.Value, written: true}
	}
	for _, i := range order {
		o := &ops[i]
		reg := regs[o.Resource]
		if reg == nil {
			reg = &register{}
			regs[o.Resource] = reg
		}
		if o.F == histories.FRead {
			read(r, cfg, o, reg)
			continue
		}
		write(r, cfg, o, reg)
	}
}

func read(r *rand.Rand, cfg Config, o *op, reg *register) {
	switch o.fate {
	case fails:
		o.Status = histories.StatusFailed
		return
	case vanishes:
		o.Status = histories.StatusUnknown
		return
	}
	o.Status = histories.StatusOK
	o.Value, o.HasValue = reg.value, reg.written
	if r.Float64() < cfg.ReportToken {
		o.Token, o.HasToken = reg.token, true
	}
}

func write(r *rand.Rand, cfg Config, o *op, reg *register) {
	accepts := o.Token > reg.token
	if o.Token == reg.token {
		accepts = acceptsEqual(r, cfg.EqualAccepted)
	}
	switch o.fate {
	case fails:
		o.Status = histories.StatusFailed
		return
	case vanishes:
		o.Status = histories.StatusUnknown
		if !o.reach {
			return
		}
	default:
		o.Status = histories.StatusRejected
		if accepts {
			o.Status = histories.StatusAccepted
		}
	}
	if accepts {
		reg.token, reg.value, reg.written = o.Token, o.Value, true
	}
}

// acceptsEqual decides whether the register accepts a repeat of its
// highest token. It draws a random number only for a receiver that mixes
// both answers, so that the histories of the others (the benchmarks')
// stay as they were.
func acceptsEqual(r *rand.Rand, p float64) bool {
	switch {
	case p <= 0:
		return false
	case p >= 1:
		return true
	}
	return r.Float64() < p
}

// finish sorts the operations by invocation and turns them into
// histories.Operations.
func finish(ops []op) []histories.Operation {
	slices.SortStableFunc(ops, func(a, b op) int { return cmp.Compare(a.Call, b.Call) })
	out := make([]histories.Operation, len(ops))
	for i := range ops {
		o := ops[i].Operation
		o.ID = i
		if o.Status == histories.StatusUnknown {
			o.Return = histories.Infinity
		}
		out[i] = o
	}
	return out
}

// Bench returns the configuration of the benchmark histories: lease-like
// tokens that clients reuse for a while (so there are repeats and stale
// writes), half reads, and operations about five times longer than the
// pauses between them, so that nearly all clients are in flight at once.
func Bench(ops, resources, clients int, unknown float64, acceptEqual bool) Config {
	equal := 0.0
	if acceptEqual {
		equal = 1
	}
	return Config{
		Resources:     resources,
		Clients:       clients,
		Ops:           ops,
		ReadRatio:     0.5,
		Unknown:       unknown,
		Acquire:       0.3,
		ReportToken:   0.5,
		EqualAccepted: equal,
		Duration:      2000,
		Gap:           400,
	}
}
