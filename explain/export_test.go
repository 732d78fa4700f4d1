package explain

import (
	"context"

	"github.com/fencecheck/fencecheck/check"
	"github.com/fencecheck/fencecheck/histories"
)

// CheckForTest is check.Check with checker c, its violations worded, for
// the tests: it panics where Check fails, which only a cancelled context
// or a disagreement of Both makes it do.
func CheckForTest(ops []histories.Operation, opts check.Options, c check.Checker) Result {
	opts.Checker = c
	res, err := check.Check(context.Background(), histories.FromOperations(ops), opts)
	if err != nil {
		panic(err)
	}
	return Explain(ops, res, opts)
}

// CheckFast is the fast checker's account of ops (porcupine's where the
// fast one cannot judge).
func CheckFast(ops []histories.Operation, opts check.Options) (Result, error) {
	return CheckForTest(ops, opts, check.Fast), nil
}

// CheckPorcupine is porcupine's account of ops.
func CheckPorcupine(ops []histories.Operation, opts check.Options) Result {
	return CheckForTest(ops, opts, check.Porcupine)
}
