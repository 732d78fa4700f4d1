package workload

import (
	"sync"

	"github.com/fencecheck/fencecheck/lease"
	"github.com/fencecheck/fencecheck/sched"
)

// Job is one job a worker took a lease for, timed on the run's clock
// (nanoseconds since the run started, virtual in a deterministic run).
// The pool keeps one per job, so that a run can say what its strategy
// cost (Measure) without anything more in the history.
type Job struct {
	Worker   int
	Resource string
	Token    uint64
	// Asked is when the worker asked for the lease, Granted when it got
	// it.
	Asked, Granted int64
	// PausedFrom and PausedTo bound the time the nemesis held the worker
	// at its pause point; equal when it was not held there.
	PausedFrom, PausedTo int64
	// Wrote says whether the job sent a write; Answered is when the
	// worker had the answer to its last write, or stopped waiting for it.
	Wrote    bool
	Answered int64
	// Abandoned says the worker learned that its lease was gone (a failed
	// renewal, or the issuer's answer to its check) and did not write.
	Abandoned bool
	// Ended is when the job ended: the worker releases the lease then.
	Ended int64
}

// paused reports whether the worker was held at its pause point at t.
func (j *Job) paused(t int64) bool {
	return j.PausedTo > j.PausedFrom && j.PausedFrom <= t && t <= j.PausedTo
}

// jobLog keeps a run's jobs, in chunks of jobChunk: a log that grows by
// copying itself spent as long moving jobs as running them in a long run
// (BenchmarkHarness).
type jobLog struct {
	mu     sync.Mutex
	chunks [][]Job
	n      int
}

const jobChunk = 512

func (l *jobLog) add(j Job) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.n%jobChunk == 0 {
		l.chunks = append(l.chunks, make([]Job, 0, jobChunk))
	}
	last := &l.chunks[len(l.chunks)-1]
	*last = append(*last, j)
	l.n++
}

// Jobs returns the jobs the workers ended so far, in the order they
// ended.
func (p *Pool) Jobs() []Job {
	p.jobs.mu.Lock()
	defer p.jobs.mu.Unlock()
	jobs := make([]Job, 0, p.jobs.n)
	for _, c := range p.jobs.chunks {
		jobs = append(jobs, c...)
	}
	return jobs
}

// holding is a worker's lease while its job runs, shared with the task
// that renews it (Renew).
type holding struct {
	lease lease.Lease
	mu    sync.Mutex
	// resumed is set while the nemesis holds the worker at its pause
	// point, and opens when the worker resumes.
	resumed sched.Gate
	// lost says a renewal failed: the worker knows its lease is gone.
	lost bool
}

func (h *holding) pause(g sched.Gate) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.resumed = g
}

func (h *holding) resume() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.resumed.Open()
	h.resumed = nil
}

// pausedGate returns the gate that opens when the worker resumes, or nil
// when it is not paused.
func (h *holding) pausedGate() sched.Gate {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.resumed
}

func (h *holding) setLost() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.lost = true
}

func (h *holding) isLost() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.lost
}
