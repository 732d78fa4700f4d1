package check

import (
	"context"
	"errors"
	"fmt"

	"github.com/fencecheck/fencecheck/histories"
)

// Input is a history as Check takes it: its operations in the full form,
// or the compact form a large history is read into
// (histories.ReadCompactFile). The fast checker judges the compact form;
// porcupine, and Both's second opinion, judge the full form, which Check
// makes from the compact one when it needs it.
type Input interface {
	[]histories.Operation | *histories.Compact
}

// Recorded is a whole history, with the lease and nemesis events beside
// its operations, in either form (see Input).
type Recorded interface {
	*histories.History | *histories.Compact
}

// Check judges ops with the checker opts names. With Fast (the default)
// the fast checker judges, and porcupine where the fast one cannot
// (Unsupported), with a note that says why. With Both the two judge, and
// Check fails with a Disagreement when their verdicts are opposite; when
// porcupine gives up, the fast checker's verdict stands. Either way the
// result is the fast checker's when it could judge, with a note on what
// porcupine found.
//
// A cancelled ctx stops the check: Check returns promptly with ctx's
// error, wrapped. A porcupine search already running on one resource
// cannot be stopped; it is abandoned, and ends at opts.Timeout.
func Check[I Input](ctx context.Context, ops I, opts Options) (Result, error) {
	return defaultCheckers.judge(ctx, sourceOf(ops), opts)
}

// CheckHistory judges a whole history: its operations with Check, and
// the grants among its other events with CheckIssuer, into Result.Issuer.
func CheckHistory[R Recorded](ctx context.Context, h R, opts Options) (Result, error) {
	var res Result
	var err error
	var others []histories.Event
	switch h := any(h).(type) {
	case *histories.History:
		res, err = Check(ctx, h.Operations, opts)
		others = h.Others
	case *histories.Compact:
		res, err = Check(ctx, h, opts)
		others = h.Others
	}
	if err != nil {
		return Result{}, err
	}
	res.Issuer = CheckIssuer(others)
	return res, nil
}

// source is a history in the form its caller had, with the other form
// made on first need.
type source struct {
	ops     []histories.Operation
	compact *histories.Compact
}

func sourceOf[I Input](ops I) *source {
	switch ops := any(ops).(type) {
	case *histories.Compact:
		return &source{compact: ops}
	case []histories.Operation:
		return &source{ops: ops}
	}
	panic("unreachable")
}

func (s *source) full() []histories.Operation {
	if s.ops == nil && s.compact != nil {
		s.ops = s.compact.Expand(nil)
	}
	return s.ops
}

// compacted is the history in the compact form the fast checker judges.
// One made from the full form is not kept: it is garbage once the fast
// checker is done, before porcupine, under Both, judges the full form.
func (s *source) compacted() *histories.Compact {
	if s.compact != nil {
		return s.compact
	}
	return histories.Compress(s.ops)
}

// checkers are the two checkers Check chooses from; tests replace them.
type checkers struct {
	fast      func(context.Context, *histories.Compact, Options) (Result, error)
	porcupine func(context.Context, []histories.Operation, Options) (Result, error)
}

var defaultCheckers = checkers{fast: checkFast, porcupine: checkPorcupine}

func (c checkers) judge(ctx context.Context, src *source, opts Options) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, fmt.Errorf("check: %w", err)
	}
	if opts.Checker == Porcupine {
		return c.porcupine(ctx, src.full(), opts)
	}
	fast, err := c.fast(ctx, src.compacted(), opts)
	var unsupported *Unsupported
	if errors.As(err, &unsupported) {
		res, err := c.porcupine(ctx, src.full(), opts)
		res.Notes = append(res.Notes, Note{Kind: NoteFallback, Unsupported: unsupported})
		return res, err
	}
	if err != nil {
		return Result{}, err
	}
	if opts.Checker != Both {
		return fast, nil
	}
	ref, err := c.porcupine(ctx, src.full(), opts)
	switch {
	case err != nil:
		return Result{}, err
	case ref.Verdict == Inconclusive:
		fast.Notes = append(fast.Notes, Note{Kind: NoteReferenceGaveUp, Verdict: ref.Verdict, Resources: ref.TimedOut, Elapsed: ref.Elapsed})
	case ref.Verdict != fast.Verdict:
		return Result{}, &Disagreement{Fast: fast, Porcupine: ref}
	default:
		fast.Notes = append(fast.Notes, Note{Kind: NoteReferenceAgrees, Verdict: ref.Verdict, Resources: ref.Blamed(), Elapsed: ref.Elapsed})
	}
	return fast, nil
}
