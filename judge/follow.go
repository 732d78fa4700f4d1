package judge

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/fencecheck/fencecheck/check"
	"github.com/fencecheck/fencecheck/explain"
	"github.com/fencecheck/fencecheck/histories"
)

// detectIdle is how long the input must stay idle for a judgement when
// one was made less than detectEvery ago: a pipe that is merely slower
// than the checker must not have every window judged again after each
// read.
const detectIdle = 20 * time.Millisecond

// Found is a violation a followed history showed as soon as it was
// found: its resource, after how many events, worded.
type Found struct {
	Resource  string
	Events    int
	Explained explain.Result
}

// Followed is the judgement of a followed history, and whether its last
// line was cut short (the writer was probably killed).
type Followed struct {
	Report
	Partial bool
}

// Follow judges the history src holds as it is written, in memory
// bounded by the operations in flight rather than by the history: each
// resource's operations are judged and released as soon as nothing still
// to come can change their verdict (check.Stream), and found is told of
// each violation the moment it is found. name names src in errors. It
// ends when src does; ctx cancels it.
//
// The Report is Judge's for the same history, but for what needs the
// whole history at once: the coverage leaves out equal tokens and old
// tokens first (Coverage.Unmeasured), and the exclusive requirement is
// not judged (Options.RequireExclusive must be false).
func Follow(ctx context.Context, src io.Reader, name string, o Options, found func(Found)) (Followed, error) {
	if o.RequireExclusive {
		return Followed{}, errors.New("judge: the exclusive requirement needs the whole history, not one followed as it is written")
	}
	so := check.DefaultStreamOptions()
	so.Options = o.Check
	stream := check.NewStream(ctx, so, func(v check.StreamViolation) {
		if found != nil {
			found(Found{Resource: v.Resource, Events: v.Events, Explained: explain.Explain(v.Ops, v.Result, o.Check)})
		}
	})
	m := newMeter(o.IssuerFaults)
	follower := histories.NewFollower(followSink{stream, m})
	truncated, err := follower.Follow(ctx, &idleReader{r: src, detect: stream.Detect}, name)
	if err != nil {
		return Followed{}, err
	}
	counts, evidence := follower.Finish()
	checked, violations, err := stream.Finish()
	if err != nil {
		return Followed{}, err
	}
	r := Report{Check: explain.Result{Result: checked}, Counts: counts, Coverage: m.cov, Power: powerOf(m.cov),
		Evidence: evidence, ReceiverLog: o.ReceiverLog}
	for _, v := range violations {
		ex := explain.Explain(v.Ops, v.Result, o.Check)
		r.Check.Violations = append(r.Check.Violations, ex.Violations...)
	}
	for _, n := range checked.Notes {
		r.Notes = append(r.Notes, n.String())
	}
	r.Findings = findings(&r, evidenceHints{})
	if r.Minimal, err = shrinkFollowed(ctx, violations, r.Check, o); err != nil {
		return Followed{}, err
	}
	d := decide(&r, &o)
	r.Verdict, r.Gate, r.Reason = d.verdict, d.gate, d.reason
	return Followed{Report: r, Partial: truncated}, nil
}

// shrinkFollowed shrinks the first cause within the operations kept of
// its resource.
func shrinkFollowed(ctx context.Context, found []check.StreamViolation, res explain.Result, o Options) (*explain.Shrunk, error) {
	first := res.First()
	if first < 0 {
		return nil, nil
	}
	for _, v := range found {
		if v.Resource == res.Violations[first].Resource {
			return shrinkFirst(ctx, v.Ops, nil, explain.Result{Result: v.Result, Violations: res.Violations[first : first+1]}, 0, &o)
		}
	}
	return nil, nil
}

// followSink hands the Follower's operations to the stream and the
// meter; the Follower counts them itself.
type followSink struct {
	stream *check.Stream
	meter  *meter
}

func (s followSink) Invoked(op *histories.Operation) {
	s.meter.invoked(op)
	s.stream.Invoked(op)
}

func (s followSink) Completed(op *histories.Operation) {
	s.meter.completed(op)
	s.stream.Completed(op)
}

func (s followSink) Other(e *histories.Event) {
	s.meter.other(e)
	s.stream.Other(e)
}

// idleReader reads r on a goroutine of its own, so that it knows when
// the next read would wait: then, and at least every detectEvery while
// reads do not wait, it calls detect, on the reading goroutine. That is
// what reports a violation soon after its line was written, whether the
// writer goes on or pauses.
type idleReader struct {
	r       io.Reader
	detect  func()
	chunks  chan readChunk
	pending readChunk
	last    time.Time
}

type readChunk struct {
	b   []byte
	err error
}

func (ir *idleReader) Read(p []byte) (int, error) {
	if ir.chunks == nil {
		ir.chunks = make(chan readChunk, 4)
		ir.last = time.Now()
		go ir.pump()
	}
	if len(ir.pending.b) == 0 && ir.pending.err == nil {
		select {
		case ir.pending = <-ir.chunks:
		default:
			ir.pending = ir.whenIdle()
		}
		if time.Since(ir.last) >= detectEvery {
			ir.detect()
			ir.last = time.Now()
		}
	}
	if len(ir.pending.b) > 0 {
		n := copy(p, ir.pending.b)
		ir.pending.b = ir.pending.b[n:]
		return n, nil
	}
	return 0, ir.pending.err
}

// whenIdle waits for the next chunk; should none come within detectIdle,
// it judges the windows first.
func (ir *idleReader) whenIdle() readChunk {
	select {
	case c := <-ir.chunks:
		return c
	case <-time.After(detectIdle):
	}
	ir.detect()
	ir.last = time.Now()
	return <-ir.chunks
}

// pump reads r into chunks until it fails or ends.
func (ir *idleReader) pump() {
	for {
		b := make([]byte, 256<<10)
		n, err := ir.r.Read(b)
		if n > 0 {
			ir.chunks <- readChunk{b: b[:n]}
		}
		if err != nil {
			ir.chunks <- readChunk{err: err}
			return
		}
	}
}
