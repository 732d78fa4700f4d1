package explain

import (
	"fmt"
	"time"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/model"
)

// This file is the one place where a finding becomes words: one renderer
// per kind of finding, for the sentence and for what the resource should
// have done at each operation the finding names. The checkers and
// Explain's rules only fill roles (finding.go); every fact a sentence
// states is one of the finding's claims, so it is true of the history
// the user recorded. Library text speaks of policies by name; the command
// line translates them into its flags.

// words is a finding in words: its sentence, and a line per operation.
type words struct {
	summary string
	rows    map[*histories.Operation]string
}

func (w *words) set(op *histories.Operation, format string, args ...any) {
	if op != nil {
		if _, done := w.rows[op]; !done {
			w.rows[op] = fmt.Sprintf(format, args...)
		}
	}
}

// expected says what the resource should have done at op.
func (w words) expected(op *histories.Operation) string {
	if s, ok := w.rows[op]; ok {
		return s
	}
	if op.IsWrite() {
		return "evidence: " + describeWrite(op)
	}
	return "evidence: a read that returned what it returned"
}

// when renders a time; an unknown return is ∞.
func when(t int64) string {
	if t == histories.Infinity {
		return "∞"
	}
	return time.Duration(t).String()
}

// describeWrite names a write: its value and token, or the state before
// the run, which no client wrote.
func describeWrite(w *histories.Operation) string {
	if w.Initial {
		return fmt.Sprintf("the state before the run (%q, token %d)", w.Value, w.Token)
	}
	return fmt.Sprintf("%q (token %d)", w.Value, w.Token)
}

// effect says what it means that w took effect: accepted, or read.
func effect(w *histories.Operation) string {
	switch {
	case w.Initial:
		return fmt.Sprintf("the state before the run: token %d is the highest", w.Token)
	case w.Status == histories.StatusAccepted:
		return fmt.Sprintf("accept token %d and remember it as the highest", w.Token)
	}
	return fmt.Sprintf("token %d took effect (its outcome is unknown, but a read returned its value)", w.Token)
}

// words renders f.
func (f *finding) words() words {
	w := words{rows: make(map[*histories.Operation]string)}
	r := f.culprit
	switch f.kind {
	case kindStaleAccepted:
		w.summary = fmt.Sprintf("stale write accepted: token %d was accepted although %s; the resource must reject it (%s policy)",
			r.Token, inEffect(f.newer, f.shown, "it was sent"), f.policy)
		already := "accepted"
		if f.shown != f.newer || f.newer.Initial {
			already = "in effect"
		}
		w.set(r, "reject token %d: token %d was already %s", r.Token, f.newer.Token, already)
		f.sightingWords(&w)
	case kindZeroAccepted:
		w.summary = "write with token 0 was accepted, but under the strict policy a token must exceed the highest accepted, which starts at 0"
		w.set(r, "reject token 0")
	case kindEqualAccepted:
		verb := "was accepted"
		if f.seen[f.first] != nil || f.seen[f.second] != nil {
			verb = "took effect"
		}
		w.summary = fmt.Sprintf("token %d %s twice; under the strict policy a repeat of the current token must be rejected", f.first.Token, verb)
		if f.advice {
			w.summary += " (the history holds under the accept-equal policy, which allows repeats, if they are intended)"
		}
		w.set(f.first, "%s", effect(f.first))
		w.set(f.second, "reject the repeat of token %d (strict)", f.second.Token)
		for _, x := range []*histories.Operation{f.first, f.second} {
			w.set(f.seen[x], "shows that token %d took effect", x.Token)
		}
	case kindWrongRejection:
		if f.highest == nil {
			w.summary = fmt.Sprintf("wrong rejection: write with token %d was rejected at %s, but no write that may have taken effect had been sent to the resource before it answered",
				r.Token, when(r.Return))
		} else {
			w.summary = fmt.Sprintf("wrong rejection: write with token %d was rejected at %s although the highest token that may have taken effect by then was %d, of %s (%s policy)",
				r.Token, when(r.Return), f.highest.Token, describeWrite(f.highest), f.policy)
			w.set(f.highest, "token %d is the highest the resource can have held before the rejection", f.highest.Token)
		}
		w.set(r, "accept token %d: it is not stale", r.Token)
	case kindLateRejection:
		w.summary = fmt.Sprintf("wrong rejection: write with token %d was rejected at %s, but no write with a token of %d or above can have taken effect by then: %s",
			r.Token, when(r.Return), r.Token, f.lateWords(&w))
		w.set(r, "accept token %d: it is not stale", r.Token)
	case kindRejectionOrder:
		w.summary = fmt.Sprintf("wrong rejection: write with token %d was rejected at %s; the earliest write that could justify it, token %d, was sent at %s, but no order of the other answers lets a write with a token of %d or above take effect before the rejection answered",
			r.Token, when(r.Return), f.highest.Token, when(f.highest.Call), r.Token)
		w.set(r, "accept token %d: nothing that would justify rejecting it can have taken effect in time", r.Token)
		w.set(f.highest, "the earliest write that could justify rejecting token %d", r.Token)
	case kindReadToken:
		w.summary = fmt.Sprintf("read reported token %d for value %q, which was written with token %d", r.Token, r.Value, f.older.Token)
		w.set(f.older, "record token %d with the value", f.older.Token)
		w.set(r, "report token %d with %q", f.older.Token, r.Value)
		f.originWords(&w, r)
	case kindReadNotApplied:
		w.summary = f.notAppliedSummary()
		w.set(r, "return the value of a write that can have taken effect by then, or not found")
		f.originWords(&w, r)
	case kindReadNowhere:
		w.summary = fmt.Sprintf("read returned %q, a value no write of the resource wrote", r.Value)
		w.set(r, "return a value some write of the resource wrote, or not found")
	case kindReadUnwritten:
		w.summary = fmt.Sprintf("read found the resource unwritten but reported token %d; an unwritten resource has token 0", r.Token)
		w.set(r, "report token 0, or no token")
	case kindStaleRead:
		w.summary = fmt.Sprintf("stale read: returned %q (token %d) although %s, after which token %d can no longer take effect",
			r.Value, f.older.Token, inEffect(f.newer, f.shown, "the read began"), f.older.Token)
		w.set(f.older, "older write")
		if f.shown == f.newer && !f.newer.Initial {
			w.set(f.newer, "newer write, accepted and returned before the read began")
		}
		w.set(r, "return %q or a newer value", f.newer.Value)
		f.sightingWords(&w)
		f.originWords(&w, r)
	case kindStaleReadOrder:
		w.summary = fmt.Sprintf("stale read: returned %q (token %d) although %q (token %d), sent after it had returned, had been accepted before the read began",
			r.Value, f.older.Token, f.newer.Value, f.newer.Token)
		w.set(f.older, "older write")
		w.set(f.newer, "newer write, accepted and returned before the read")
		w.set(r, "return %q or a newer value", f.newer.Value)
		f.originWords(&w, r)
	case kindUnwrittenRead:
		w.summary = "read found the resource unwritten although " + inEffect(f.newer, f.shown, "the read began")
		if f.newer.Initial {
			w.summary = fmt.Sprintf("read found the resource unwritten although it held %q (token %d) from before the run", f.newer.Value, f.newer.Token)
		}
		w.set(r, "return %q or a newer value", f.newer.Value)
		f.sightingWords(&w)
	case kindConflict:
		x, y := f.first, f.second
		w.summary = fmt.Sprintf("no order explains the answers: the writes of %q and %q share token %d, so either may take effect first, but neither can: %s; and %s",
			x.Value, y.Value, x.Token, f.cannotPrecede(f.bounds[0]), f.cannotPrecede(f.bounds[1]))
		w.set(x, "take effect before or after %q, with its reads in between", y.Value)
		w.set(y, "take effect before or after %q, with its reads in between", x.Value)
		for _, b := range f.bounds {
			for _, op := range []*histories.Operation{b.hi, b.push} {
				if !op.IsWrite() {
					w.set(op, "a read between its write and the next one")
				} else if op != x && op != y {
					w.set(op, "accept token %d, which bars token %d", op.Token, b.of.Token)
				}
			}
		}
		for _, op := range []*histories.Operation{x, y} {
			w.set(f.seen[op], "shows that %q took effect", op.Value)
		}
	case kindOrderNoOrder:
		o := f.older
		w.summary = fmt.Sprintf("no order explains the answers: a read returned %q, the value of a write with token %d whose outcome is unknown, although %s, after which token %d can no longer take effect",
			r.Value, o.Token, inEffect(f.newer, f.shown, "that write was sent"), o.Token)
		w.set(o, "take effect before token %d, or not at all", f.newer.Token)
		w.set(r, "return a value that can have taken effect")
		f.sightingWords(&w)
		f.originWords(&w, r)
	case kindNoOrder:
		if r == nil {
			w.summary = "no order of the operations on this resource explains the answers the resource gave"
			break
		}
		w.summary = fmt.Sprintf("no order of the operations explains the answers the resource gave: the search for one could not place operation #%d (%s)",
			r.ID, model.DescribeHistoryOp(r))
		w.set(r, "an answer consistent with the operations before it")
		for _, op := range f.context {
			w.set(op, "concurrent with it")
		}
	}
	return w
}

// inEffect says that newer had taken effect before subject ("it was
// sent", "the read began"), as shown shows it.
func inEffect(newer, shown *histories.Operation, subject string) string {
	switch {
	case newer.Initial:
		return fmt.Sprintf("the state before the run already had token %d", newer.Token)
	case shown == newer:
		return fmt.Sprintf("%q (token %d) had been accepted before %s", newer.Value, newer.Token, subject)
	}
	return fmt.Sprintf("a read had returned %q (token %d) before %s", newer.Value, newer.Token, subject)
}

func (f *finding) sightingWords(w *words) {
	w.set(f.newer, "%s", effect(f.newer))
	if f.shown != f.newer {
		w.set(f.shown, "returned %q: token %d had taken effect", f.newer.Value, f.newer.Token)
	}
	if f.shown != nil && !f.shown.IsWrite() {
		f.originWords(w, f.shown)
	}
}

// lateWords says what shows that no write justifying the rejection took
// effect in time.
func (f *finding) lateWords(w *words) string {
	x, r := f.later, f.culprit
	switch {
	case x.IsWrite():
		w.set(x, "took effect, so no write with a token of %d or above can have taken effect before it was sent", r.Token)
		w.set(f.seen[x], "shows that token %d took effect", x.Token)
		return fmt.Sprintf("token %d, which such a write would bar, took effect, and it was sent only at %s", x.Token, when(x.Call))
	case !x.HasValue:
		w.set(x, "still found the resource unwritten")
		return fmt.Sprintf("a read that began later, at %s, still found the resource unwritten", when(x.Call))
	}
	w.set(x, "still saw token %d, below %d", f.older.Token, r.Token)
	w.set(f.older, "a token below %d", r.Token)
	f.originWords(w, x)
	return fmt.Sprintf("a read that began later, at %s, still returned %s", when(x.Call), describeWrite(f.older))
}

// originWords says, for each write of the value read returned that
// cannot have produced it, why.
func (f *finding) originWords(w *words, read *histories.Operation) {
	for _, o := range f.origins[read] {
		switch o.why {
		case causeRejected:
			w.set(o.w, "a rejected write changes nothing")
		case causeFailed:
			w.set(o.w, "a write that failed changes nothing")
		case causeSentAfter:
			w.set(o.w, "this write started only after the read had returned")
		case causeNeverAcceptable:
			w.set(o.w, "reject token %d: the %s policy never accepts it", o.w.Token, f.policy)
		case causeBarred:
			w.set(o.w, "cannot take effect: token %d had been accepted before it was sent", o.barrer.Token)
			w.set(o.barrer, "accept token %d and remember it as the highest", o.barrer.Token)
		}
	}
}

// notAppliedSummary says why no write of the value a read returned can
// have produced it.
func (f *finding) notAppliedSummary() string {
	r := f.culprit
	os := f.origins[r]
	if len(os) > 1 {
		return fmt.Sprintf("read returned %q, but none of the %d writes of that value can have taken effect by then", r.Value, len(os))
	}
	o := os[0]
	switch o.why {
	case causeRejected:
		return fmt.Sprintf("read returned %q, the value of a write the resource rejected", r.Value)
	case causeFailed:
		return fmt.Sprintf("read returned %q, the value of a write that failed (it never took effect)", r.Value)
	case causeSentAfter:
		return fmt.Sprintf("read returned %q before the write of that value was sent", r.Value)
	case causeNeverAcceptable:
		return fmt.Sprintf("read returned %q, the value of a write with token %d, which the %s policy never accepts", r.Value, o.w.Token, f.policy)
	}
	return fmt.Sprintf("read returned %q, the value of a write (token %d, outcome %s) that cannot have taken effect: token %d had been accepted before it was sent",
		r.Value, o.w.Token, o.w.Status, o.barrer.Token)
}

// cannotPrecede says why b.of's partner cannot take effect first.
func (f *finding) cannotPrecede(b orderBound) string {
	other := f.first
	if b.of == f.first {
		other = f.second
	}
	late := fmt.Sprintf("a read of %q began only at %s", other.Value, when(b.push.Call))
	if b.push.IsWrite() {
		late = fmt.Sprintf("%q was sent only at %s", other.Value, when(b.push.Call))
	}
	var early string
	switch {
	case !b.hi.IsWrite():
		early = fmt.Sprintf("a read had returned %q by %s", b.of.Value, when(b.hi.Return))
	case b.hi == b.of:
		early = fmt.Sprintf("%q had been accepted by %s", b.of.Value, when(b.hi.Return))
	default:
		early = fmt.Sprintf("%q had taken effect by %s, when token %d, which bars it, had been accepted", b.of.Value, when(b.hi.Return), b.hi.Token)
	}
	return fmt.Sprintf("%q is not first, because %s, yet %s", other.Value, early, late)
}
