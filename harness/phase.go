package harness

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/fencecheck/fencecheck/sched"
)

// errPhaseOver is returned by a phaseClock's Sleep when the fault phase
// ended first.
var errPhaseOver = errors.New("harness: fault phase over")

// phaseClock is the runtime the nemesis sees: its sleeps end when the
// fault phase ends, so no fault outlives it into the recovery phase. (A
// virtual deadline cannot be a context deadline: contexts run on the real
// clock.)
type phaseClock struct {
	sched.Runtime
	end atomic.Int64 // time at which the fault phase ends; 0: not known yet
}

func (p *phaseClock) Sleep(ctx context.Context, d time.Duration) error {
	end := p.end.Load()
	if end == 0 {
		return p.Runtime.Sleep(ctx, d)
	}
	left := time.Duration(end - p.Runtime.Now())
	if left <= 0 {
		return errPhaseOver
	}
	if d < left {
		return p.Runtime.Sleep(ctx, d)
	}
	if err := p.Runtime.Sleep(ctx, left); err != nil {
		return err
	}
	return errPhaseOver
}

// workClock is the run's runtime with its time 0 where the run's own work
// begins: after its token issuer was opened. Config.Workload.Duration, the fault
// phases and a scripted schedule's times count from there, so that an
// issuer fencecheck starts itself (an etcd cluster, whose members took
// 6 s to start on a loaded machine) does not eat the run's duration. The
// history keeps the runtime's own times: its first event may come late.
// Runs without an issuer use the runtime as it is (a deterministic run's
// history does not change).
type workClock struct {
	sched.Runtime
	start int64
}

func (w workClock) Now() int64 { return w.Runtime.Now() - w.start }

// phases splits a run's duration: a warm-up without faults, the fault
// phase, and a recovery without faults before the final reads, so that the
// end state is observed after the faults stop.
type phases struct {
	warmup, faultEnd time.Duration
}

func planPhases(d time.Duration) phases {
	if d == 0 {
		return phases{} // operation limit only: faults from start to end
	}
	return phases{warmup: d / 10, faultEnd: d - d/6}
}
