package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/models"
)

// Checkers that --checker names.
const (
	checkerFast      = "fast"
	checkerPorcupine = "porcupine"
	checkerBoth      = "both"
)

func validChecker(name string) error {
	switch name {
	case checkerFast, checkerPorcupine, checkerBoth:
		return nil
	}
	return fmt.Errorf("unknown checker %q (want fast, porcupine or both)", name)
}

// checkers are the two checkers judge chooses from; tests replace them.
type checkers struct {
	fast      func([]histories.Operation, models.Options) (models.Result, error)
	porcupine func([]histories.Operation, models.Options) models.Result
}

var modelCheckers = checkers{fast: models.CheckFast, porcupine: models.CheckPorcupine}

// judge runs the checker that --checker names. The fast checker is exact
// but needs unique values per resource and the fenced model; when it cannot
// judge, judge falls back to porcupine and says why in a note. "both" runs
// the two and returns an error when they reach opposite verdicts: one of
// them is wrong, and that matters more than the history.
func (c checkers) judge(ops []histories.Operation, opts models.Options, checker string) (models.Result, []string, error) {
	if checker == checkerPorcupine {
		return c.porcupine(ops, opts), nil, nil
	}
	fast, err := c.fast(ops, opts)
	if errors.Is(err, models.ErrFastPrecondition) {
		return c.porcupine(ops, opts), []string{models.FallbackNote(err)}, nil
	}
	if err != nil {
		return models.Result{}, nil, fmt.Errorf("fast checker: %w", err)
	}
	if checker == checkerFast {
		return fast, nil, nil
	}
	ref := c.porcupine(ops, opts)
	if ref.Verdict == models.Inconclusive {
		note := fmt.Sprintf("porcupine gave up after %s (inconclusive on %s); the fast checker's verdict stands",
			ref.Elapsed.Round(1e6), strings.Join(ref.TimedOut, ", "))
		return fast, []string{note}, nil
	}
	if ref.Verdict != fast.Verdict {
		return models.Result{}, nil, fmt.Errorf("checkers disagree: fast says %s%s, porcupine says %s%s; please report this history",
			fast.Verdict, resourcesOf(fast), ref.Verdict, resourcesOf(ref))
	}
	note := fmt.Sprintf("porcupine agrees: %s%s, in %s", ref.Verdict, resourcesOf(ref), ref.Elapsed.Round(1e3))
	return fast, []string{note}, nil
}

func resourcesOf(res models.Result) string {
	if len(res.Violations) == 0 {
		return ""
	}
	names := make([]string, len(res.Violations))
	for i, v := range res.Violations {
		names[i] = fmt.Sprintf("%q", v.Resource)
	}
	return " on " + strings.Join(names, ", ")
}
