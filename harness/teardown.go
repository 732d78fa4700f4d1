package harness

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/fencecheck/fencecheck/internal/termsafe"
	"github.com/fencecheck/fencecheck/targets"
)

// Teardown tears target down, when it is a targets.Teardowner, and
// returns what went wrong as warnings, one per failure, each naming the
// target (name) and, as the target says, what was left behind (a table,
// a process) and how to remove it, escaped for a terminal (termsafe). A
// failed tear-down does not change a run's verdict: the history was
// recorded and checked all the same.
func Teardown(ctx context.Context, target targets.Target, name string) []string {
	td, ok := target.(targets.Teardowner)
	if !ok {
		return nil
	}
	err := td.Teardown(ctx)
	errs := []error{err}
	var many interface{ Unwrap() []error }
	if errors.As(err, &many) {
		errs = many.Unwrap()
	}
	var warnings []string
	for _, e := range errs {
		if e != nil {
			warnings = append(warnings, termsafe.String(fmt.Sprintf("tear down %s: %v", name, e)))
		}
	}
	return warnings
}

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
		td.warnings = Teardown(td.ctx, td.cfg.Target, td.cfg.TargetName)
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
