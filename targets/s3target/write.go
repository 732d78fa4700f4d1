package s3target

import (
	"context"
	"fmt"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/internal/redact"
)

// attempts bounds how often a write is decided again after the store
// refused its conditional PUT (412 or 409): each refusal means another
// write landed in between, so the run makes progress all the same.
const attempts = 32

// Write sends the write with its token, in the target's mode.
func (t *Target) Write(ctx context.Context, resource string, token uint64, value string) (histories.Outcome, error) {
	var out histories.Outcome
	var err error
	switch t.mode {
	case ModeEpochKeys:
		out, err = t.epochKeys(ctx, resource, token, value)
	case ModeETagOnly:
		out, err = t.etagOnly(ctx, resource, token, value)
	case ModeUnconditional:
		out, err = t.unconditional(ctx, resource, token, value)
	default:
		out, err = t.cas(ctx, resource, token, value)
	}
	if err != nil {
		return 0, fmt.Errorf("write token %d to %s at %s: %w", token, resource, t.name, redact.Error(err, t.secrets))
	}
	return out, nil
}

// refused is the error of a write whose every attempt the store refused.
func refused(key string) error {
	return notApplied(fmt.Errorf("object key %s changed between each read and its PUT, %d times (412 or 409 every time)", key, attempts))
}

// cas is the correct compare-and-swap on one object: GET it with its
// ETag, refuse a token that does not pass the stored one, PUT with
// If-Match: <ETag> (If-None-Match: * for the first write). The store
// applies the PUT only if the object is still the one the decision was
// made on; a 412 means another write landed in between, and the write is
// read and decided again, against what is stored now. A 409
// ConditionalRequestConflict (S3's answer to two conditional writes at
// once) applied nothing either, and is tried again the same way: it is
// never a rejection, for the write that won may carry a lower token than
// this one. The harness's window runs between the decision and the PUT
// on the first attempt.
func (t *Target) cas(ctx context.Context, resource string, token uint64, value string) (histories.Outcome, error) {
	key := t.key(resource)
	for attempt := 1; attempt <= attempts; attempt++ {
		obj, err := t.get(ctx, key)
		if err != nil {
			return 0, notApplied(err)
		}
		if obj.found && !t.passes(token, obj.token) {
			return histories.Rejected, nil
		}
		if attempt == 1 {
			t.openWindow(ctx, resource, token)
		}
		c := condition{ifMatch: obj.etag, ifNoneMatch: !obj.found}
		err = t.put(ctx, key, encode(token, value), c)
		switch {
		case err == nil:
			return histories.Accepted, nil
		case isPrecondition(err), isConflict(err):
			continue
		}
		return 0, classify(err)
	}
	return 0, refused(key)
}

// etagOnly is the trap: it guards its PUT with the ETag it read right
// before, and compares no token. If-Match protects against a change
// between that read and the PUT, not against an old owner: a writer
// whose lease expired, paused in the window, wakes up, reads the newer
// owner's ETag and overwrites the newer value with a matching
// precondition. A 412 is taken as the application would, as a lost race
// to read again and PUT again.
func (t *Target) etagOnly(ctx context.Context, resource string, token uint64, value string) (histories.Outcome, error) {
	key := t.key(resource)
	t.openWindow(ctx, resource, token)
	for range attempts {
		etag, found, err := t.head(ctx, key)
		if err != nil {
			return 0, notApplied(err)
		}
		err = t.put(ctx, key, encode(token, value), condition{ifMatch: etag, ifNoneMatch: !found})
		switch {
		case err == nil:
			return histories.Accepted, nil
		case isPrecondition(err), isConflict(err):
			continue
		}
		return 0, classify(err)
	}
	return 0, refused(key)
}

// unconditional is a plain PUT: the last write wins, whatever its
// token.
func (t *Target) unconditional(ctx context.Context, resource string, token uint64, value string) (histories.Outcome, error) {
	t.openWindow(ctx, resource, token)
	if err := t.put(ctx, t.key(resource), encode(token, value), condition{}); err != nil {
		return 0, classify(err)
	}
	return histories.Accepted, nil
}
