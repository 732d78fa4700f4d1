package sched

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Order is how a simulation chooses the next task among those ready at
// the same virtual instant: Random, a uniform choice at every step, or
// PCT(d), the priority schedules of Burckhardt et al. (pct.go). The zero
// Order is Random.
//
// An Order orders only what Sim leaves open: a task parked on a virtual
// timer is not ready until the clock reaches it, and the clock moves only
// when no task is ready, so no Order can make a task run before an
// earlier timer's.
type Order struct {
	depth int // 0: random
}

// Random returns the simulation's default order: at every step a uniform
// choice among the ready tasks. It is Order's zero value.
func Random() Order { return Order{} }

// MaxDepth is the largest PCT depth ParseOrder accepts. The guarantee
// shrinks by a factor of the run's steps for each unit of depth, so a
// depth beyond a handful finds nothing a smaller one would not, and
// MaxDepth only keeps a typo from drawing millions of change points.
const MaxDepth = 64

// PCT returns the order that finds every bug of depth d with the
// probability PCT guarantees (see pctOrder); d below 1 is 1.
func PCT(d int) Order { return Order{depth: min(max(d, 1), MaxDepth)} }

// Depth is PCT's d, 0 for Random.
func (o Order) Depth() int { return o.depth }

// IsRandom reports whether o is Random.
func (o Order) IsRandom() bool { return o.depth == 0 }

// String is o as ParseOrder reads it: "random" or "pct:D".
func (o Order) String() string {
	if o.IsRandom() {
		return "random"
	}
	return "pct:" + strconv.Itoa(o.depth)
}

// ParseOrder parses "random" or "pct:D", D a decimal from 1 to MaxDepth.
func ParseOrder(s string) (Order, error) {
	if s == "random" {
		return Random(), nil
	}
	if d, ok := strings.CutPrefix(s, "pct:"); ok {
		n, err := strconv.Atoi(d)
		if err != nil || n < 1 || n > MaxDepth || strconv.Itoa(n) != d {
			return Random(), fmt.Errorf("%q: want pct:D with D a decimal from 1 to %d, the depth of the bugs to look for", s, MaxDepth)
		}
		return PCT(n), nil
	}
	return Random(), fmt.Errorf("%q: want random or pct:D", s)
}

// chooser is an Order at work in one simulation.
type chooser interface {
	// spawned is told of every new task before it can be chosen.
	spawned(t *task)
	// pick returns the index in ready (never empty) of the task that
	// runs the next step; ran is the task whose step just ended (it may
	// be among ready, or waiting, or finished), nil before the first.
	pick(ran *task, ready []*task) int
}

// chooser returns o at work on rng, in a run estimated to take steps
// steps.
func (o Order) chooser(rng *rand.Rand, steps int) chooser {
	if o.IsRandom() {
		return randomOrder{rng: rng}
	}
	return newPCTOrder(rng, o.depth, steps)
}

// randomOrder chooses uniformly among the ready tasks at every step. It
// draws exactly as the simulation did before it had orders, one IntN per
// step, so that a seed's history is the same bytes as it always was.
type randomOrder struct{ rng *rand.Rand }

func (randomOrder) spawned(*task) {}

func (r randomOrder) pick(_ *task, ready []*task) int { return r.rng.IntN(len(ready)) }
