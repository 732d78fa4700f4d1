package harness

import (
	"context"
	"fmt"
	"sync"

	"github.com/fencecheck/fencecheck/targets"
)

// failure is what ends a run early with an error rather than a verdict:
// a fault (nemesis.Env.Fail) or the target found that what the run tests
// is gone, and a verdict would judge whatever answered in its place. Run
// returns it once the history is closed, so that the history stays in the
// run directory, checkable.
type failure struct {
	mu     sync.Mutex
	err    error
	cancel context.CancelFunc
}

// Fail implements nemesis.Env: the first failure wins and stops the
// workers and the faults as an interruption would.
func (r *run) Fail(err error) {
	r.failure.mu.Lock()
	defer r.failure.mu.Unlock()
	if r.failure.err == nil {
		r.failure.err = err
	}
	if r.failure.cancel != nil {
		r.failure.cancel()
	}
}

// watchFailure returns the context of the run's tasks: it ends with ctx,
// or at the first failure of a fault or of the target. The run's end
// (r.life) releases it.
func (r *run) watchFailure(ctx context.Context) context.Context {
	ctx, cancel := context.WithCancel(ctx)
	context.AfterFunc(r.life, cancel)
	r.failure.mu.Lock()
	r.failure.cancel = cancel
	r.failure.mu.Unlock()
	if t, ok := r.cfg.Target.Receiver.(targets.Failing); ok {
		go func() {
			select {
			case <-t.Failed():
				r.Fail(t.Err())
			case <-r.life.Done():
			}
		}()
	}
	return ctx
}

// failed returns the run's failure, if any, naming where its history is.
// It also asks the target, which may have failed after the watch ended
// (during the final reads).
func (r *run) failed(st *storage) error {
	if t, ok := r.cfg.Target.Receiver.(targets.Failing); ok && t.Err() != nil {
		r.Fail(t.Err())
	}
	r.failure.mu.Lock()
	defer r.failure.mu.Unlock()
	if r.failure.err == nil {
		return nil
	}
	return fmt.Errorf("run %s: %w\n(the history recorded until then is in %s; fencecheck check reads it)",
		r.cfg.Target.Name, r.failure.err, st.keptHistory())
}
