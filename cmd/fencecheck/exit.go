package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/fencecheck/fencecheck/judge"
)

// Exit codes, the same for every command that judges.
const (
	exitHeld         = 0 // the invariant held
	exitViolated     = 1 // a violation was found
	exitInconclusive = 2 // the checker gave up, or the gate's coverage was not met
	exitError        = 3 // bad flag, unreadable or malformed input, unreachable target
)

// verdictExit carries a verdict's exit code out of a command without
// printing anything more: the command has already reported.
type verdictExit struct{ code int }

func (v *verdictExit) Error() string { return fmt.Sprintf("exit %d", v.code) }

func exitFor(v judge.Verdict) error {
	switch v {
	case judge.Held:
		return nil
	case judge.Violated:
		return &verdictExit{exitViolated}
	default:
		return &verdictExit{exitInconclusive}
	}
}

// usageError marks a bad flag or argument; cobra's own errors for unknown
// flags are wrapped into it too, so that they exit 3 and never 1.
type usageError struct{ err error }

func (u *usageError) Error() string { return u.err.Error() }
func (u *usageError) Unwrap() error { return u.err }

// exitCode maps the error a command returned to the process exit code and
// reports it on stderr.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return exitHeld
	}
	var v *verdictExit
	if errors.As(err, &v) {
		return v.code
	}
	fmt.Fprintf(stderr, "fencecheck: %v\n", err)
	var u *usageError
	if errors.As(err, &u) {
		fmt.Fprintln(stderr, "Run 'fencecheck --help' for usage.")
	}
	return exitError
}
