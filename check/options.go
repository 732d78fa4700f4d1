package check

import (
	"fmt"
	"time"

	"github.com/fencecheck/fencecheck/model"
)

// Options configure a check.
type Options struct {
	Kind    model.Kind
	Policy  model.Policy
	Checker Checker
	// Timeout bounds the whole check; 0 means none. A check that runs out
	// of time is inconclusive, never held.
	Timeout time.Duration
}

// Checker chooses who judges a history.
type Checker uint8

const (
	// Fast is the exact O(n log n) checker, with porcupine judging
	// where it cannot (a value written twice on a resource, the plain
	// register).
	Fast Checker = iota
	// Porcupine is the reference checker alone.
	Porcupine
	// Both runs the fast checker and porcupine and fails when they reach
	// opposite verdicts.
	Both
)

// String returns the checker's name, as ParseChecker reads it.
func (c Checker) String() string {
	switch c {
	case Porcupine:
		return "porcupine"
	case Both:
		return "both"
	}
	return "fast"
}

// ParseChecker parses "fast", "porcupine" or "both".
func ParseChecker(s string) (Checker, error) {
	for _, c := range []Checker{Fast, Porcupine, Both} {
		if s == c.String() {
			return c, nil
		}
	}
	return Fast, fmt.Errorf("unknown checker %q (want fast, porcupine or both)", s)
}
