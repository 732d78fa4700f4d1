package harness

import (
	"context"
	"fmt"
	"strings"

	"github.com/fencecheck/fencecheck/targets"
)

// teardown tears a run's target down once: right after its last
// operation, or, when the run ends early, as Run returns.
type teardown struct {
	cfg      Config
	ctx      context.Context
	done     bool
	warnings []string
}

// newTeardown prepares the tear-down of cfg's target. It does not share
// the run's cancellation: an interrupted run still cleans up.
func newTeardown(ctx context.Context, cfg Config) *teardown {
	return &teardown{cfg: cfg, ctx: context.WithoutCancel(ctx)}
}

// run tears down, the first time it is called, and returns the warnings.
func (td *teardown) run() []string {
	if !td.done {
		td.done = true
		td.warnings = targets.Teardown(td.ctx, td.cfg.Target.Receiver, td.cfg.Target.Name)
	}
	return td.warnings
}

// finish tears down if the run ended before it did, and adds the warnings
// to the run's error, which is then all the caller sees of the run.
func (td *teardown) finish(err error) error {
	warnings := td.run()
	if err == nil || len(warnings) == 0 {
		return err
	}
	return fmt.Errorf("%w\nwarning: %s", err, strings.Join(warnings, "\nwarning: "))
}
