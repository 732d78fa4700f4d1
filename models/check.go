package models

import (
	"strings"

	"github.com/fencecheck/fencecheck/histories"
)

// Check judges ops with the fast checker and falls back to porcupine when
// the fast checker cannot judge them (a value written twice on a resource,
// the plain register model). The note, empty when the fast checker judged,
// says why it fell back.
func Check(ops []histories.Operation, opts Options) (Result, string) {
	res, err := CheckFast(ops, opts)
	if err == nil {
		return res, ""
	}
	return CheckPorcupine(ops, opts), FallbackNote(err)
}

// FallbackNote says why the fast checker could not judge a history (err is
// what CheckFast returned) and that porcupine judges it instead.
func FallbackNote(err error) string {
	return "the fast checker cannot judge this history (" +
		strings.TrimPrefix(err.Error(), ErrFastPrecondition.Error()+": ") + "); falling back to porcupine"
}
