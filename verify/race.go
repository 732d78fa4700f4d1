package verify

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/targets"
)

// racers is how many writers race in each round.
const racers = 8

// checkThenSetRace sends several writers with different tokens at one
// resource at the same instant, in rounds. Whatever the order, the highest
// token must end up stored: a receiver that reads the token, decides and
// writes in separate steps lets a lower token that passed the check write
// last.
var checkThenSetRace = scenario{
	name:   "check-then-set-race",
	hazard: "concurrent writers race between the token check and the write",
	run: func(ctx context.Context, s *script) Row {
		return race(ctx, s, true)
	},
}

// twoFirstWriters races two writers on a resource that does not exist yet:
// the insert path, where "no row yet" is easy to get wrong.
var twoFirstWriters = scenario{
	name:   "two-first-writers",
	hazard: "two writers create a resource that does not exist yet",
	run: func(ctx context.Context, s *script) Row {
		return race(ctx, s, false)
	},
}

// race runs the rounds. With a base write the resource holds token 1
// first, and racers writers race with tokens 2..racers+1; without one, two
// writers race with tokens 1 and 2 on a missing resource. With a lease
// issuer, each round's tokens are its grants, in the same order.
func race(ctx context.Context, s *script, withBase bool) Row {
	n, scripted := 2, []uint64{1, 2}
	if withBase {
		n, scripted = racers, make([]uint64, racers+1)
		for i := range scripted {
			scripted[i] = uint64(i) + 1
		}
	}
	window := widenWindow(s.t, n)
	defer window.restore()
	out := Row{Expected: fmt.Sprintf("in each of %d rounds token %d accepted and stored, whatever the order", s.o.Rounds, scripted[len(scripted)-1])}
	for round := 1; round <= s.o.Rounds; round++ {
		r := s.resource()
		toks, done, err := s.owners(ctx, r, scripted...)
		if err != nil {
			return s.abort(err)
		}
		racing := toks
		if withBase {
			racing = toks[1:]
			if a := s.write(ctx, r, toks[0], "base"); !a.is(histories.Accepted) {
				done()
				out.Observed, out.Result = fmt.Sprintf("round %d: the first write was %s", round, a), Fail
				return out
			}
		}
		top := toks[len(toks)-1]
		if s.o.Leases != nil {
			out.Expected = fmt.Sprintf("in each of %d rounds the highest token accepted and stored, whatever the order", s.o.Rounds)
		}
		window.race(r, racing)
		answers := make([]answer, n)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i, tok := range racing {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				answers[i] = s.write(ctx, r, tok, fmt.Sprintf("racer-%d", tok))
			}()
		}
		close(start)
		wg.Wait()
		got := s.read(ctx, r)
		done()
		if !answers[n-1].is(histories.Accepted) || !got.holds(fmt.Sprintf("racer-%d", top), top) {
			out.Observed = fmt.Sprintf("round %d: token %d %s, then %s", round, top, answers[n-1], got)
			out.Result = Fail
			return out
		}
	}
	out.Observed = fmt.Sprintf("%d rounds: the highest token stored every time", s.o.Rounds)
	if s.o.Leases == nil {
		out.Observed = fmt.Sprintf("%d rounds: token %d stored every time", s.o.Rounds, scripted[len(scripted)-1])
	}
	out.Result = Pass
	return out
}

// window widens the race window of a windowed receiver for the racing
// writers of each round (see widenWindow).
type window struct {
	mu      sync.Mutex
	n       int
	rounds  map[string]*round
	restore func()
}

// round is one resource's race: its racers' tokens, and how many of them
// have checked.
type round struct {
	tokens  map[uint64]bool
	lowest  uint64
	all     chan struct{} // closed once all n writers have checked
	checked int
}

// race declares the racing tokens of resource.
func (w *window) race(resource string, tokens []uint64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	r := &round{tokens: make(map[uint64]bool), lowest: tokens[0], all: make(chan struct{})}
	for _, t := range tokens {
		r.tokens[t] = true
		r.lowest = min(r.lowest, t)
	}
	w.rounds[resource] = r
}

// widenWindow holds each of the n racing writers of a windowed receiver
// (the base write goes straight through) between its check and its write
// until all n writers of its resource (each round races on a resource of
// its own) have checked, or windowTimeout passed, and then holds the
// lowest token a little longer, so that it writes last: the race in such
// a receiver then always happens, in its worst order, instead of in the
// order the scheduler happens to pick (with two writers that is the
// harmless one half of the time). window.restore undoes it.
func widenWindow(t targets.Target, n int) *window {
	w := &window{n: n, rounds: make(map[string]*round), restore: func() {}}
	wt, ok := t.(targets.Windowed)
	if !ok {
		return w
	}
	wt.SetWindow(func(ctx context.Context, resource string, token uint64) {
		w.mu.Lock()
		r := w.rounds[resource]
		if r == nil || !r.tokens[token] || r.checked == w.n {
			w.mu.Unlock()
			return // not one of the round's racers
		}
		r.checked++
		if r.checked == w.n {
			close(r.all)
		}
		w.mu.Unlock()
		select {
		case <-r.all:
		case <-time.After(windowTimeout):
			return
		case <-ctx.Done():
			return
		}
		if token == r.lowest {
			select {
			case <-time.After(lastWriterDelay):
			case <-ctx.Done():
			}
		}
	})
	w.restore = func() { wt.SetWindow(nil) }
	return w
}

// windowTimeout bounds how long widenWindow holds a writer for the others
// of its round: they normally arrive within microseconds, but a loaded
// machine (the race detector, parallel tests) can delay a goroutine's
// start by far more than that, and a writer released early lets the
// others check against its write instead of racing it.
const windowTimeout = 2 * time.Second

// lastWriterDelay is how long widenWindow holds the lowest token's writer
// after the others are released: far longer than the others need to
// write to memory.
const lastWriterDelay = 20 * time.Millisecond
