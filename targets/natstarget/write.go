package natstarget

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/internal/redact"
)

// casAttempts bounds how often an atomic write decides again after the
// server refused its Update for a revision conflict.
const casAttempts = 16

// Write sends the write with its token, in the target's mode.
func (t *Target) Write(ctx context.Context, resource string, token uint64, value string) (histories.Outcome, error) {
	var out histories.Outcome
	var err error
	if t.mode == ModeCheckThenSet {
		out, err = t.checkThenSet(ctx, resource, token, value)
	} else {
		out, err = t.atomic(ctx, resource, token, value)
	}
	if err != nil {
		return 0, fmt.Errorf("write token %d to %s at %s: %w", token, resource, t.name, redact.Error(err, t.secrets))
	}
	return out, nil
}

// passes says whether token may replace what e holds under the target's
// policy.
func (t *Target) passes(e entry, token uint64) bool {
	return !e.found || token > e.token || (token == e.token && t.acceptEqual)
}

// atomic is compare-and-set on the key's revision, as NATS teaches it:
// read the entry and its revision, compare the tokens in Go, and write
// with Update(key, value, revision), which the server applies only while
// the key's last revision is still the one read (Create, for a key never
// written, only while it has none). When another write got in between,
// the server refuses (jetstream.ErrKeyRevisionMismatch, or ErrKeyExists
// for Create) and stores nothing; the write then reads again and is
// decided against what is stored now. The harness's window runs between
// the comparison and the write on the first attempt.
//
// A refusal is no rejection: the write that got in between may carry a
// lower token than this one, and a fenced register must accept this one
// after it. When every attempt was refused, the write is recorded as
// definitely not applied (fail): the server said it stored nothing.
func (t *Target) atomic(ctx context.Context, resource string, token uint64, value string) (histories.Outcome, error) {
	for attempt := 1; attempt <= casAttempts; attempt++ {
		e, err := t.get(ctx, resource)
		if err != nil {
			return 0, notApplied(fmt.Errorf("read: %w", err))
		}
		if !t.passes(e, token) {
			return histories.Rejected, nil
		}
		if attempt == 1 {
			t.openWindow(ctx, resource, token)
		}
		err = t.compareAndSet(ctx, resource, e.revision, encode(token, value))
		switch {
		case err == nil:
			return histories.Accepted, nil
		case errors.Is(err, jetstream.ErrKeyRevisionMismatch), errors.Is(err, jetstream.ErrKeyExists):
			continue
		}
		return 0, classify(err)
	}
	return 0, notApplied(fmt.Errorf("the server refused the write %d times: the key changed between each read and its write", casAttempts))
}

// compareAndSet writes b at the resource's key if its last revision is
// still revision: Update, or Create when the key was never written.
func (t *Target) compareAndSet(ctx context.Context, resource string, revision uint64, b []byte) error {
	ctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	var err error
	if revision == 0 {
		_, err = t.kv.Create(ctx, keyOf(resource), b)
	} else {
		_, err = t.kv.Update(ctx, keyOf(resource), b, revision)
	}
	return err
}

// checkThenSet is the article's hazard, as a service would write it
// against a KV store: Get the entry, compare the tokens in Go, then Put
// the value, which replaces whatever is stored by then. A newer write
// that lands in between is overwritten by this older one. The harness's
// window (SetWindow) runs between the comparison and the Put; there the
// delay fault holds a write until a newer token has been accepted.
func (t *Target) checkThenSet(ctx context.Context, resource string, token uint64, value string) (histories.Outcome, error) {
	e, err := t.get(ctx, resource)
	if err != nil {
		return 0, notApplied(fmt.Errorf("check: %w", err))
	}
	if !t.passes(e, token) {
		return histories.Rejected, nil
	}
	t.openWindow(ctx, resource, token)
	ctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	if _, err := t.kv.Put(ctx, keyOf(resource), encode(token, value)); err != nil {
		return 0, fmt.Errorf("put: %w", classify(err))
	}
	return histories.Accepted, nil
}

// openWindow runs the harness's window, when it set one.
func (t *Target) openWindow(ctx context.Context, resource string, token uint64) {
	if t.window != nil {
		t.window(ctx, resource, token)
	}
}
