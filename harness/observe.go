package harness

import (
	"context"
	"fmt"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/lease"
)

// observe reads every resource once before the workers start, so that the
// history says what the receiver held when the run began. A resource
// that holds a value becomes the model's initial state (an initial event
// right after the read) and its lease tokens start above the token it
// holds: a receiver tested twice is then judged on what it does, not on
// what it kept from the first run. It is an error, before any worker
// writes, when a resource cannot be observed, or holds a value whose
// token fencecheck cannot know: judging against a guessed state could
// only give a wrong verdict.
//
// A read that got no answer is asked again, up to observeAttempts times:
// a read changes nothing, and a receiver fencecheck has just started
// (or restarted) may be slow to answer its first requests on a loaded
// machine. Each attempt is in the history.
func (r *run) observe(ctx context.Context) error {
	r.reader = r.cfg.Workload.Workers // a process id no worker starts with
	for _, res := range r.resources {
		var done histories.Event
		for range observeAttempts {
			done = r.workers.Observe(ctx, &r.reader, res)
			if ctx.Err() != nil {
				return nil // interrupted: the run reports it
			}
			if done.Type == histories.TypeOK {
				break
			}
		}
		if err := r.adoptState(res, &done); err != nil {
			return err
		}
	}
	return nil
}

// observeAttempts is how many reads of a resource observe makes before
// it gives up on one that gets no answer.
const observeAttempts = 5

// adoptState takes what the observing read of resource returned as the
// state the run starts from.
func (r *run) adoptState(resource string, done *histories.Event) error {
	switch {
	case done.Type != histories.TypeOK:
		return fmt.Errorf("observe %s before the run: the read failed %d times, the last: %s", resource, observeAttempts, done.Error)
	case !done.HasValue && done.HasToken && done.Token != 0:
		return fmt.Errorf("observe %s before the run: the receiver reports token %d but no value; fencecheck cannot model a resource that was never written but fences at a token", resource, done.Token)
	case !done.HasValue:
		return nil // never written: the model's default
	case !done.HasToken:
		return fmt.Errorf("observe %s before the run: it already holds %q, and the receiver reports no token on reads, so fencecheck cannot know which tokens it must reject; %s",
			resource, done.Value, fresh(r.cfg))
	case done.Token == 0:
		return fmt.Errorf("observe %s before the run: it already holds %q with token 0, which no strict receiver accepts; %s",
			resource, done.Value, fresh(r.cfg))
	}
	initial := histories.InitialState(resource, done.Value, done.Token,
		fmt.Sprintf("the state before the run: %q with token %d; leases on %s start above it", done.Value, done.Token, resource))
	r.rec.Record(&initial)
	if f, ok := r.leases.(lease.Floored); ok {
		f.StartAbove(resource, done.Token)
	}
	return nil
}

// fresh says how to avoid prior state.
func fresh(cfg Config) string {
	if len(cfg.Workload.ResourceNames) > 0 {
		return "empty the resource, or let the run name its resources (no fixed resource names)"
	}
	return "empty the resource and run again"
}
