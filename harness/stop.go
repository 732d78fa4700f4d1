package harness

import (
	"context"
	"fmt"

	"github.com/fencecheck/fencecheck/judge"
)

// stopOnViolation, for a run that asks for it (Config.StopOnViolation),
// hands every event the recorder writes to a judge.Watch, after the
// caller's Observer, and returns a context that the watch cancels at the
// first violation, the violation as its cause; stop ends the watch.
// Otherwise it returns ctx as it is.
func stopOnViolation(ctx context.Context, cfg *Config) (_ context.Context, stop func()) {
	if !cfg.Gates.StopOnViolation {
		return ctx, func() {}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	setting := cfg.terms().Setting(stopAtViolation)
	w := judge.Watch(cfg.judgeOptions(), cfg.Output.Observer, func(resource string, events int) {
		cancel(fmt.Errorf("a violation on %s, found after %d events (%s)", resource, events, setting))
	})
	cfg.Output.Observer = w
	return ctx, func() {
		w.Stop()
		cancel(nil)
	}
}
