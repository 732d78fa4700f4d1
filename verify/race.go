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

// windowed is implemented by receivers with a race window that can be
// widened (memory://check-then-set), so that the race happens on purpose.
type windowed interface {
	SetWindow(func(ctx context.Context, resource string, token uint64))
}

// checkThenSetRace sends several writers with different tokens at one
// resource at the same instant, in rounds. Whatever the order, the highest
// token must end up stored: a receiver that reads the token, decides and
// writes in separate steps lets a lower token that passed the check write
// last.
var checkThenSetRace = scenario{
	name:   "check-then-set-race",
	hazard: "concurrent writers race between the token check and the write",
	run: func(ctx context.Context, s *script) Row {
		return race(ctx, s, 1, func(ctx context.Context, r string) answer { return s.write(ctx, r, 1, "base") })
	},
}

// twoFirstWriters races two writers on a resource that does not exist yet:
// the insert path, where "no row yet" is easy to get wrong.
var twoFirstWriters = scenario{
	name:   "two-first-writers",
	hazard: "two writers create a resource that does not exist yet",
	run: func(ctx context.Context, s *script) Row {
		return race(ctx, s, 0, nil)
	},
}

// race runs the rounds. With a base write the resource holds token 1
// first, and racers writers race with tokens 2..racers+1; without one, two
// writers race with tokens 1 and 2 on a missing resource.
func race(ctx context.Context, s *script, base uint64, prepare func(context.Context, string) answer) Row {
	n := racers
	if prepare == nil {
		n = 2
	}
	restore := widenWindow(s.t, n, base)
	defer restore()
	top := base + uint64(n)
	out := Row{Expected: fmt.Sprintf("in each of %d rounds token %d accepted and stored, whatever the order", s.o.Rounds, top)}
	for round := 1; round <= s.o.Rounds; round++ {
		r := s.resource()
		if prepare != nil {
			if a := prepare(ctx, r); !a.is(histories.Accepted) {
				out.Observed, out.Result = fmt.Sprintf("round %d: the first write was %s", round, a), Fail
				return out
			}
		}
		answers := make([]answer, n)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				tok := base + 1 + uint64(i)
				answers[i] = s.write(ctx, r, tok, fmt.Sprintf("racer-%d", tok))
			}()
		}
		close(start)
		wg.Wait()
		got := s.read(ctx, r)
		if !answers[n-1].is(histories.Accepted) || !got.holds(fmt.Sprintf("racer-%d", top), top) {
			out.Observed = fmt.Sprintf("round %d: token %d %s, then %s", round, top, answers[n-1], got)
			out.Result = Fail
			return out
		}
	}
	out.Observed = fmt.Sprintf("%d rounds: token %d stored every time", s.o.Rounds, top)
	out.Result = Pass
	return out
}

// widenWindow holds each of the n racing writers of a windowed receiver
// (tokens base+1 to base+n; the base write goes straight through) between
// its check and its write until all n writers of its resource (each round
// races on a resource of its own) have checked, or windowTimeout passed,
// and then holds the lowest token, base+1, a little longer, so that it
// writes last: the race in such a receiver then always happens, in its
// worst order, instead of in the order the scheduler happens to pick
// (with two writers that is the harmless one half of the time). It
// returns the undo.
func widenWindow(t targets.Target, n int, base uint64) func() {
	w, ok := t.(windowed)
	if !ok {
		return func() {}
	}
	type round struct {
		all     chan struct{} // closed once all n writers have checked
		checked int
	}
	var mu sync.Mutex
	rounds := make(map[string]*round)
	w.SetWindow(func(ctx context.Context, resource string, token uint64) {
		if token <= base {
			return
		}
		mu.Lock()
		r := rounds[resource]
		if r == nil {
			r = &round{all: make(chan struct{})}
			rounds[resource] = r
		}
		if r.checked == n {
			mu.Unlock()
			return // not one of the round's racers
		}
		r.checked++
		if r.checked == n {
			close(r.all)
		}
		mu.Unlock()
		select {
		case <-r.all:
		case <-time.After(windowTimeout):
			return
		case <-ctx.Done():
			return
		}
		if token == base+1 {
			select {
			case <-time.After(lastWriterDelay):
			case <-ctx.Done():
			}
		}
	})
	return func() { w.SetWindow(nil) }
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
