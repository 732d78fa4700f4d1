package workload

import (
	"sync"
	"sync/atomic"
)

// holds are the nemesis's holds of the run's workers and writes while it
// waits for a newer owner to write (nemesis.Env.Holding). While one lasts,
// an operation-bounded run goes on past its bound, since the newer owner
// needs operations of its own; and a worker held at its pause point sends
// its write when the hold ends, bound or not: the stale write is what the
// hold is for. Without this a run bounded by --ops could spend its
// operations while a worker waits out a real issuer's TTL (two seconds on
// etcd), and end without the stale write it was holding it for, however
// the machine is loaded. Only holds that began before the bound was
// reached extend it: holds that begin during the extension would extend
// it again, and the run would end only when no hold happened to be in
// progress. A run bounded by its duration is not changed.
type holds struct {
	active atomic.Int64 // holds in progress
	owedN  atomic.Int64 // len(owed), read without the lock
	mu     sync.Mutex
	owed   map[int]bool // workers held at their pause point since their last write
}

// Holding implements nemesis.Env.Holding for the workers: worker is the
// worker held at its pause point, -1 for a write that is already on its
// way.
func (p *Pool) Holding(worker int) (done func()) {
	h := &p.holds
	extends := p.cfg.Ops == 0 || p.issued.Load() < int64(p.cfg.Ops)
	if extends {
		h.active.Add(1)
	}
	if worker >= 0 {
		h.mu.Lock()
		if h.owed == nil {
			h.owed = make(map[int]bool)
		}
		if !h.owed[worker] {
			h.owed[worker] = true
			h.owedN.Add(1)
		}
		h.mu.Unlock()
	}
	if !extends {
		return func() {}
	}
	var once sync.Once
	return func() { once.Do(func() { h.active.Add(-1) }) }
}

// holding reports whether a hold is in progress.
func (h *holds) holding() bool { return h.active.Load() > 0 }

// owes reports whether worker was held at its pause point since its last
// write, and clears it: the job calls it once, after its pause point.
func (h *holds) owes(worker int) bool {
	if h.owedN.Load() == 0 {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	owed := h.owed[worker]
	if owed {
		delete(h.owed, worker)
		h.owedN.Add(-1)
	}
	return owed
}
