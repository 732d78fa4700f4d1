package verify

import (
	"context"
	"fmt"
	"sync"
	"time"

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
	run: func(ctx context.Context, s *script) Outcome {
		return race(ctx, s, 1, func(ctx context.Context, r string) answer { return s.write(ctx, r, 1, "base") })
	},
}

// twoFirstWriters races two writers on a resource that does not exist yet:
// the insert path, where "no row yet" is easy to get wrong.
var twoFirstWriters = scenario{
	name:   "two-first-writers",
	hazard: "two writers create a resource that does not exist yet",
	run: func(ctx context.Context, s *script) Outcome {
		return race(ctx, s, 0, nil)
	},
}

// race runs the rounds. With a base write the resource holds token 1
// first, and racers writers race with tokens 2..racers+1; without one, two
// writers race with tokens 1 and 2 on a missing resource.
func race(ctx context.Context, s *script, base uint64, prepare func(context.Context, string) answer) Outcome {
	n := racers
	if prepare == nil {
		n = 2
	}
	restore := widenWindow(s.t, n)
	defer restore()
	top := base + uint64(n)
	out := Outcome{Expected: fmt.Sprintf("in each of %d rounds token %d accepted and stored, whatever the order", s.o.Rounds, top)}
	for round := 1; round <= s.o.Rounds; round++ {
		r := s.resource()
		if prepare != nil {
			if a := prepare(ctx, r); !a.is(targets.Accepted) {
				out.Observed, out.Status = fmt.Sprintf("round %d: the first write was %s", round, a), Fail
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
		if !answers[n-1].is(targets.Accepted) || !got.holds(fmt.Sprintf("racer-%d", top), top) {
			out.Observed = fmt.Sprintf("round %d: token %d %s, then %s", round, top, answers[n-1], got)
			out.Status = Fail
			return out
		}
	}
	out.Observed = fmt.Sprintf("%d rounds: token %d stored every time", s.o.Rounds, top)
	out.Status = Pass
	return out
}

// widenWindow holds each writer of a windowed receiver between its check
// and its write until all n have checked (or 100ms passed), so that the
// race in such a receiver always happens; it returns the undo.
func widenWindow(t targets.Target, n int) func() {
	w, ok := t.(windowed)
	if !ok {
		return func() {}
	}
	var mu sync.Mutex
	checked := 0
	all := make(chan struct{})
	w.SetWindow(func(ctx context.Context, _ string, _ uint64) {
		mu.Lock()
		checked++
		if checked == n {
			close(all)
		}
		if checked%n == 0 { // the next round waits for its own writers
			all = make(chan struct{})
			checked = 0
		}
		wait := all
		mu.Unlock()
		select {
		case <-wait:
		case <-time.After(100 * time.Millisecond):
		case <-ctx.Done():
		}
	})
	return func() { w.SetWindow(nil) }
}
