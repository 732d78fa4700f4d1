package histgen

import "github.com/fencecheck/fencecheck/internal/testsupport/gotool"

// CaseCount is the number of cases a randomized campaign runs: flagged,
// the count its flag asked for, when set; short when the tests run with
// -short (pass testing.Short(); histgen is not a test package and does
// not import testing) or under the race detector; else full.
//
// The race detector slows these campaigns about tenfold, and what it
// checks (the checker's goroutines) a short campaign exercises as well
// as a long one: so `make test` runs every package with -race and the
// short counts, then the campaigns again without it at their full counts
// (the Makefile's campaigns target), and the cases a long campaign adds
// are still run on every make test.
func CaseCount(flagged, full, short int, isShort bool) int {
	switch {
	case flagged > 0:
		return flagged
	case isShort || gotool.RaceEnabled:
		return short
	}
	return full
}
