package check

import (
	"context"

	"github.com/fencecheck/fencecheck/histories"
)

// SortByTokenForTest exposes sortByToken to the external tests.
func SortByTokenForTest[T any](xs []T, token func(*T) uint64) {
	var tmp []T
	sortByToken(xs, &tmp, &sortBuffers{}, token)
}

// FastForTest runs the fast checker alone, without porcupine to fall back
// on, for the external tests that compare it with porcupine.
func FastForTest(ops []histories.Operation, opts Options) (Result, error) {
	return checkFast(context.Background(), histories.FromOperations(ops), opts)
}

// PorcupineForTest runs porcupine alone.
func PorcupineForTest(ops []histories.Operation, opts Options) Result {
	res, err := checkPorcupine(context.Background(), ops, opts)
	if err != nil {
		panic(err) // only a cancelled context fails, and this one is never cancelled
	}
	return res
}
