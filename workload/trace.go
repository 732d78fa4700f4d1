package workload

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"sync"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/targets"
)

// traces draws the trace context of each client operation, for a target
// that carries one (targets.TraceCarrier).
//
// An id is the first 16 bytes (the span id the next 8) of the SHA-256 of
// the run's trace seed, the operation's process and its place among that
// process's operations, not of a random source:
//   - within a run, every operation's id differs, since no two operations
//     share a process and a place (a process has one operation at a time,
//     and the ids of workers, the harness's reader and replaced processes
//     never meet, see newProcess), and the hash spreads them like random
//     ids, as tracing systems expect;
//   - the ids depend on nothing a scheduler decides, so a rerun of a
//     deterministic seed, whose run id is drawn from the seed, sends the
//     very same ids: the receiver's logs of the two runs can be compared
//     request by request;
//   - a real-time run draws its run id at random, so its ids are fresh
//     and do not collide with another run's in a receiver that keeps
//     them (36^6 run ids; the shard is part of the seed, so the shards of
//     one job never share an id either).
//
// A hash that comes out all zero (a chance of 2^-128) gets its last bit
// set, since the trace-context specification forbids zero ids.
type traces struct {
	seed string
	mu   sync.Mutex
	next map[int]uint64 // process → its next operation's place
}

func newTraces(seed string) *traces {
	return &traces{seed: seed, next: make(map[int]uint64)}
}

// draw returns the trace context of process's next operation.
func (t *traces) draw(process int) targets.TraceContext {
	t.mu.Lock()
	seq := t.next[process]
	t.next[process] = seq + 1
	t.mu.Unlock()
	return TraceFor(t.seed, process, seq)
}

// TraceFor is the trace context of operation seq (counted from 0) of
// process in the run whose trace seed is seed (see traces).
func TraceFor(seed string, process int, seq uint64) targets.TraceContext {
	h := sha256.New()
	_, _ = h.Write([]byte("fencecheck trace\x00"))
	_, _ = h.Write([]byte(seed))
	var b [17]byte // a separator, then the process and the place
	binary.BigEndian.PutUint64(b[1:9], uint64(int64(process)))
	binary.BigEndian.PutUint64(b[9:], seq)
	_, _ = h.Write(b[:])
	sum := h.Sum(nil)
	var tc targets.TraceContext
	copy(tc.TraceID[:], sum[:16])
	copy(tc.SpanID[:], sum[16:24])
	if tc.TraceID == [16]byte{} {
		tc.TraceID[15] = 1
	}
	if tc.SpanID == [8]byte{} {
		tc.SpanID[7] = 1
	}
	return tc
}

// opTrace is the trace context of one operation, if its target carries
// one.
type opTrace struct {
	tc targets.TraceContext
	ok bool
}

// traceOf draws the trace context of the operation inv invokes and
// writes its trace id on inv, before inv is recorded; the zero opTrace
// when the target carries none, and inv is left as it was.
func (p *Pool) traceOf(inv *histories.Event) opTrace {
	if p.traces == nil {
		return opTrace{}
	}
	tc := p.traces.draw(inv.Process)
	inv.Trace = tc.TraceIDString()
	return opTrace{tc: tc, ok: true}
}

// into returns ctx carrying the operation's trace context, for the
// target. Every request of the operation carries it, a duplicate the
// nemesis sends too: it is the same operation.
func (o opTrace) into(ctx context.Context) context.Context {
	if !o.ok {
		return ctx
	}
	return targets.WithTrace(ctx, o.tc)
}
