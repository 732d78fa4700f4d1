package check

import (
	"context"
	"errors"
	"fmt"

	"github.com/fencecheck/fencecheck/histories"
)

// Check judges the history h with the checker opts names: its
// operations against the model, and the grants among its other events
// against the token issuer's invariant (CheckIssuer), into Result.Issuer.
// With Fast (the default) the fast checker judges, and porcupine where
// the fast one cannot (Unsupported), with a note that says why. With Both
// the two judge, and Check fails with a Disagreement when their verdicts
// are opposite; when porcupine gives up, the fast checker's verdict
// stands. Either way the result is the fast checker's when it could
// judge, with a note on what porcupine found.
//
// The fast checker judges the compact operations of h; porcupine, and
// Both's second opinion, judge the full form, which Check makes from
// them when it needs it. Operations built in memory are judged as the
// history histories.FromOperations makes of them.
//
// A cancelled ctx stops the check: Check returns promptly with ctx's
// error, wrapped. A porcupine search already running on one resource
// cannot be stopped; it is abandoned, and ends at opts.Timeout.
func Check(ctx context.Context, h *histories.History, opts Options) (Result, error) {
	res, err := defaultCheckers.judge(ctx, &source{compact: h}, opts)
	if err != nil {
		return Result{}, err
	}
	res.Issuer = CheckIssuer(h.Others)
	return res, nil
}

// checkOperations is Check of operations alone, in the full form: a
// stream's windows, judged without a round trip through the compact form
// when porcupine judges them.
func checkOperations(ctx context.Context, ops []histories.Operation, opts Options) (Result, error) {
	return defaultCheckers.judge(ctx, &source{ops: ops}, opts)
}

// source is a history in the form its caller had, with the other form
// made on first need.
type source struct {
	ops     []histories.Operation
	compact *histories.History
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
func (s *source) compacted() *histories.History {
	if s.compact != nil {
		return s.compact
	}
	return histories.FromOperations(s.ops)
}

// checkers are the two checkers Check chooses from; tests replace them.
type checkers struct {
	fast      func(context.Context, *histories.History, Options) (Result, error)
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
