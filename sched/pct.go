package sched

import "math/rand/v2"

// pctOrder is the PCT scheduler (Burckhardt, Kothari, Musuvathi,
// Nagarakatte, "A randomized scheduler with probabilistic guarantees of
// finding bugs", ASPLOS 2010), as the paper gives it:
//
//   - every task gets a random priority when it is created, above the
//     d−1 low priorities reserved for change points, all distinct;
//   - d−1 change points k_1 … k_{d−1} are drawn uniformly from the steps
//     1 … k, each on its own (two may coincide);
//   - every step runs the ready task of highest priority;
//   - when a task has run step k_i, its priority drops to i: below every
//     task that has not dropped (so d = 2 drops it below all others).
//
// The paper proves that a bug of depth d — one that shows when d ordering
// constraints between the run's steps hold — in a program of n threads
// and k steps is found by one run with probability at least
// 1/(n·k^(d−1)). Here a step is what Sim schedules, the run of a task
// from one wait to the next, and a task is a thread. What that promises
// and what it does not for a fencecheck run is in docs/exploration.md.
type pctOrder struct {
	rng *rand.Rand
	// changes[i] is the step after which the running task drops to
	// priority i+1.
	changes []int
	// steps counts the steps begun.
	steps int
	depth int
}

// priority is a task's place in a PCT order; the higher runs first. A
// task keeps level depth until a change point drops it to that point's
// level; rank orders tasks of one level, drawn when the task is created.
type priority struct {
	level int
	rank  uint64
}

func (p priority) above(q priority) bool {
	if p.level != q.level {
		return p.level > q.level
	}
	return p.rank > q.rank
}

// newPCTOrder draws the change points of a run of depth d estimated at k
// steps (at least 1).
func newPCTOrder(rng *rand.Rand, d, k int) *pctOrder {
	k = max(k, 1)
	p := &pctOrder{rng: rng, depth: d, changes: make([]int, d-1)}
	for i := range p.changes {
		p.changes[i] = 1 + rng.IntN(k)
	}
	return p
}

// spawned draws t's priority. Two tasks draw the same rank with
// probability 2^-64 per pair; pick would then prefer the one earlier in
// the ready list, which is still a function of the seed.
func (p *pctOrder) spawned(t *task) {
	t.prio = priority{level: p.depth, rank: p.rng.Uint64()}
}

func (p *pctOrder) pick(ran *task, ready []*task) int {
	if ran != nil {
		for i, at := range p.changes {
			if at == p.steps {
				ran.prio.level = i + 1
			}
		}
	}
	p.steps++
	best := 0
	for i, t := range ready[1:] {
		if t.prio.above(ready[best].prio) {
			best = i + 1
		}
	}
	return best
}
