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
	note := "the fast checker cannot judge this history (" +
		strings.TrimPrefix(err.Error(), ErrFastPrecondition.Error()+": ") + "); porcupine judged it"
	return CheckPorcupine(ops, opts), note
}
