package check

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/fencecheck/fencecheck/model"
)

// Note is something Check did besides judging, as a value; String words it.
type Note struct {
	Kind NoteKind
	// Unsupported is why the fast checker could not judge (NoteFallback).
	Unsupported *Unsupported
	// Reference is porcupine's verdict and time (NoteReferenceAgrees,
	// NoteReferenceGaveUp).
	Verdict Verdict
	// Resources are the resources porcupine found violated (agrees) or
	// gave up on (gave up).
	Resources []string
	Elapsed   time.Duration
}

// NoteKind says what a note is about.
type NoteKind uint8

const (
	// NoteFallback: the fast checker cannot judge the history, and
	// porcupine judged it instead.
	NoteFallback NoteKind = iota
	// NoteReferenceAgrees: with Both, porcupine reached the fast
	// checker's verdict.
	NoteReferenceAgrees
	// NoteReferenceGaveUp: with Both, porcupine gave up; the fast
	// checker's verdict stands.
	NoteReferenceGaveUp
)

// String words the note for people.
func (n Note) String() string {
	switch n.Kind {
	case NoteReferenceAgrees:
		return fmt.Sprintf("porcupine agrees: %s%s, in %s", n.Verdict, onResources(n.Resources), n.Elapsed.Round(time.Microsecond))
	case NoteReferenceGaveUp:
		return fmt.Sprintf("porcupine gave up after %s (inconclusive on %s); the fast checker's verdict stands",
			n.Elapsed.Round(time.Millisecond), strings.Join(n.Resources, ", "))
	}
	return "the fast checker cannot judge this history (" + n.Unsupported.Detail() + "); falling back to porcupine"
}

// onResources names resources after a verdict: ` on "a", "b"`, or nothing.
func onResources(names []string) string {
	if len(names) == 0 {
		return ""
	}
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = fmt.Sprintf("%q", n)
	}
	return " on " + strings.Join(quoted, ", ")
}

// Unsupported is the error of the fast checker when it cannot judge a
// history; Check then asks porcupine. Exactly one of its cases is set.
type Unsupported struct {
	// Model is a model other than the fenced register (Kind set).
	Model model.Kind
	// TooMany is the number of operations, when records cannot address
	// them all.
	TooMany int
	// Resource, Value and Writes: two writes of Resource, by ID, wrote
	// Value, so that a read of it no longer names one write.
	Resource, Value string
	Writes          [2]int
}

// Detail says why, without saying that it is the fast checker.
func (u *Unsupported) Detail() string {
	switch {
	case u.Model != model.KindFenced:
		return fmt.Sprintf("the %s model is not supported", u.Model)
	case u.TooMany > 0:
		return fmt.Sprintf("%d operations, more than records can address", u.TooMany)
	}
	return fmt.Sprintf("resource %q: value %q is written by operations #%d and #%d", u.Resource, u.Value, u.Writes[0], u.Writes[1])
}

func (u *Unsupported) Error() string {
	return "check: the fast checker cannot judge this history: " + u.Detail()
}

// Disagreement is the error of Both when the two checkers reach opposite
// verdicts: one of them is wrong, which matters more than the history.
type Disagreement struct {
	Fast, Porcupine Result
}

func (d *Disagreement) Error() string {
	return fmt.Sprintf("checkers disagree: fast says %s%s, porcupine says %s%s; please report this history",
		d.Fast.Verdict, onResources(d.Fast.Blamed()), d.Porcupine.Verdict, onResources(d.Porcupine.Blamed()))
}

// IsDisagreement reports whether err is, or wraps, a Disagreement.
func IsDisagreement(err error) bool {
	var d *Disagreement
	return errors.As(err, &d)
}
