package workload

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/fencecheck/fencecheck/histories"
)

// Progress is a snapshot of a run in progress.
type Progress struct {
	Elapsed  time.Duration // run time (virtual in deterministic mode)
	Duration time.Duration // planned, 0 when only an operation limit is set
	Ops      int64
	Accepted int64
	Rejected int64
	Unknown  int64
}

// String words the snapshot as a run's live status line shows it.
func (p Progress) String() string {
	return fmt.Sprintf("%v/%v  ops %d  accepted %d  rejected %d  unknown %d",
		p.Elapsed.Round(time.Millisecond), p.Duration, p.Ops, p.Accepted, p.Rejected, p.Unknown)
}

type counters struct {
	ops, accepted, rejected, unknown atomic.Int64
}

func (c *counters) snapshot(elapsed, planned time.Duration) Progress {
	return Progress{Elapsed: elapsed, Duration: planned, Ops: c.ops.Load(), Accepted: c.accepted.Load(),
		Rejected: c.rejected.Load(), Unknown: c.unknown.Load()}
}

// Progress returns a snapshot of the workers' counts at elapsed.
func (p *Pool) Progress(elapsed time.Duration) Progress {
	return p.counts.snapshot(elapsed, p.cfg.Duration)
}

func (c *counters) count(e *histories.Event) {
	c.ops.Add(1)
	switch {
	case e.Type == histories.TypeInfo:
		c.unknown.Add(1)
	case e.Outcome == histories.Accepted:
		c.accepted.Add(1)
	case e.Outcome == histories.Rejected:
		c.rejected.Add(1)
	}
}
