package check

import (
	"context"
	"errors"
	"fmt"

	"github.com/fencecheck/fencecheck/histories"
)

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
func Check(ctx context.Context, ops []histories.Operation, opts Options) (Result, error) {
	return checkers{fast: checkFast, porcupine: checkPorcupine}.check(ctx, ops, opts)
}

// CheckHistory judges a whole history: its operations with Check, and
// the grants among its other events with CheckIssuer, into Result.Issuer.
func CheckHistory(ctx context.Context, h *histories.History, opts Options) (Result, error) {
	res, err := Check(ctx, h.Operations, opts)
	if err != nil {
		return Result{}, err
	}
	res.Issuer = CheckIssuer(h.Others)
	return res, nil
}

// checkers are the two checkers Check chooses from; tests replace them.
type checkers struct {
	fast      func(context.Context, []histories.Operation, Options) (Result, error)
	porcupine func(context.Context, []histories.Operation, Options) (Result, error)
}

func (c checkers) check(ctx context.Context, ops []histories.Operation, opts Options) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, fmt.Errorf("check: %w", err)
	}
	if opts.Checker == Porcupine {
		return c.porcupine(ctx, ops, opts)
	}
	fast, err := c.fast(ctx, ops, opts)
	var unsupported *Unsupported
	if errors.As(err, &unsupported) {
		res, err := c.porcupine(ctx, ops, opts)
		res.Notes = append(res.Notes, Note{Kind: NoteFallback, Unsupported: unsupported})
		return res, err
	}
	if err != nil {
		return Result{}, err
	}
	if opts.Checker != Both {
		return fast, nil
	}
	ref, err := c.porcupine(ctx, ops, opts)
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
