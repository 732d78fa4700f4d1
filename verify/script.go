package verify

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/internal/termsafe"
	"github.com/fencecheck/fencecheck/targets"
)

// script runs one scenario's steps and records them. Every operation gets
// a process of its own, so a process never has two operations in flight,
// even when a scenario races writers.
type script struct {
	t        targets.Target
	o        Options
	scenario string
	procs    *atomic.Int64
	fresh    atomic.Int64
	err      error // why the scenario was aborted (abort)
	answers  answered
}

// answered is what the receiver answered in a scenario, for what the
// battery says when it went away during it (receiver.go). Its
// scenarios' writers race, hence the lock.
type answered struct {
	mu sync.Mutex
	// unknown: an operation's outcome was unknown (an error).
	unknown bool
	// largest is the largest token of a write the receiver answered;
	// first the token of the first write it did not, if hasFirst.
	largest  uint64
	first    uint64
	hasFirst bool
}

// note records a write of token, answered unless err, or a read's error.
func (a *answered) note(write bool, token uint64, err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch {
	case err == nil && write:
		a.largest = max(a.largest, token)
	case err != nil:
		a.unknown = true
		if write && !a.hasFirst {
			a.first, a.hasFirst = token, true
		}
	}
}

// resource returns a resource name no other scenario or battery uses.
func (s *script) resource() string {
	return fmt.Sprintf("verify-%s-%s-%d", s.o.RunID, s.scenario, s.fresh.Add(1))
}

func (s *script) record(e histories.Event) {
	if s.o.Recorder != nil {
		s.o.Recorder.Record(&e)
	}
}

// mark records a scenario's start or end as a nemesis-style annotation.
func (s *script) mark(f, detail string) {
	s.record(histories.Event{Process: -1, Actor: histories.ActorNemesis, F: f, Fault: "verify:" + s.scenario, Detail: detail})
}

// lease records a lease event of the scripted timeline.
func (s *script) lease(f, resource string, token uint64, holder int, detail string) {
	s.record(histories.Event{Process: -1, Actor: histories.ActorLease, F: f, Resource: resource,
		Token: token, HasToken: true, Holder: holder, HasHolder: true, Detail: detail})
}

// handover is the article's reassignment on resource: A holds 41, loses
// it (why), and B receives 42. Without a lease service it records that
// scripted timeline; with one, the issuer grants both tokens (owners).
func (s *script) handover(ctx context.Context, resource, why string) ([]uint64, func(), error) {
	if s.o.Leases != nil {
		return s.owners(ctx, resource, 41, 42)
	}
	s.lease(histories.FAcquire, resource, 41, 0, "worker A receives token 41")
	s.lease(histories.FExpire, resource, 41, 0, why)
	s.lease(histories.FAcquire, resource, 42, 1, "worker B receives token 42")
	return []uint64{41, 42}, func() {}, nil
}

// answer is a write's result as the table shows it.
type answer struct {
	out histories.Outcome
	err error
}

func (a answer) String() string {
	if a.err != nil {
		return "unknown (" + short(a.err) + ")"
	}
	return a.out.String()
}

func (a answer) is(o histories.Outcome) bool { return a.err == nil && a.out == o }

func short(err error) string {
	msg := err.Error()
	if i := strings.LastIndex(msg, ": "); i >= 0 && len(msg) > 80 {
		msg = msg[i+2:]
	}
	if len(msg) > 80 {
		cut := 80
		for cut > 0 && !utf8.RuneStart(msg[cut]) {
			cut-- // whole characters only
		}
		msg = msg[:cut] + "…"
	}
	return termsafe.String(msg) // the target's words: a body or a driver's error
}

// write sends one write and records it. A token above the receiver's
// domain is never sent: the scenario is aborted with an error (an issuer
// granted it; the scripted tokens stay inside), never judged.
func (s *script) write(ctx context.Context, resource string, token uint64, value string) answer {
	if token > s.o.MaxToken {
		err := targets.OutsideDomain(token, s.o.MaxToken)
		if s.err == nil {
			s.abort(fmt.Errorf("write %d to %s: %w", token, resource, err))
		}
		return answer{err: err}
	}
	inv := histories.Event{Process: int(s.procs.Add(1)), Type: histories.TypeInvoke, F: histories.FWrite,
		Resource: resource, Token: token, HasToken: true, Value: value, HasValue: true}
	s.record(inv)
	out, err := s.t.Write(ctx, resource, token, value)
	s.answers.note(true, token, err)
	s.record(targets.WriteCompletion(inv, out, err))
	return answer{out, err}
}

// reading is a read's result as the table shows it.
type reading struct {
	r   targets.Reading
	err error
}

func (r reading) String() string {
	switch {
	case r.err != nil:
		return "read unknown (" + short(r.err) + ")"
	case !r.r.Found:
		return "read: never written"
	case r.r.HasToken:
		return fmt.Sprintf("read %q@%d", r.r.Value, r.r.Token)
	}
	return fmt.Sprintf("read %q", r.r.Value)
}

// holds reports whether the read shows value written with token (the
// token is checked only if the receiver reports tokens).
func (r reading) holds(value string, token uint64) bool {
	return r.err == nil && r.r.Found && r.r.Value == value && (!r.r.HasToken || r.r.Token == token)
}

func (s *script) read(ctx context.Context, resource string) reading {
	inv := histories.Event{Process: int(s.procs.Add(1)), Type: histories.TypeInvoke, F: histories.FRead, Resource: resource}
	s.record(inv)
	r, err := s.t.Read(ctx, resource)
	s.answers.note(false, 0, err)
	s.record(targets.ReadCompletion(inv, r, err))
	return reading{r, err}
}

// verdict is Pass when ok, else Fail.
func verdict(ok bool) Result {
	if ok {
		return Pass
	}
	return Fail
}
