package harness

import (
	"sync/atomic"
	"time"
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

type counters struct {
	ops, accepted, rejected, unknown atomic.Int64
}

func (c *counters) snapshot(elapsed, planned time.Duration) Progress {
	return Progress{Elapsed: elapsed, Duration: planned, Ops: c.ops.Load(), Accepted: c.accepted.Load(),
		Rejected: c.rejected.Load(), Unknown: c.unknown.Load()}
}
