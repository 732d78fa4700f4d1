package targets

import (
	"context"
	"errors"
	"fmt"

	"github.com/fencecheck/fencecheck/internal/termsafe"
)

// Teardown tears target down, when it is a targets.Teardowner, and
// returns what went wrong as warnings, one per failure, each naming the
// target (name) and, as the target says, what was left behind (a table,
// a process) and how to remove it, escaped for a terminal (termsafe). A
// failed tear-down does not change a run's verdict: the history was
// recorded and checked all the same.
func Teardown(ctx context.Context, target Target, name string) []string {
	td, ok := target.(Teardowner)
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
