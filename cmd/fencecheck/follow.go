package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/fencecheck/fencecheck/check"
	"github.com/fencecheck/fencecheck/explain"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/runstore"
)

// followPoll is how often check --follow looks again at a file that has
// no new line, and detectEvery how often it judges the windows while
// lines keep coming: a violation is reported within about that long of
// its line being read.
const (
	followPoll  = 100 * time.Millisecond
	detectEvery = 400 * time.Millisecond
	// detectIdle is how long the input must stay idle for a judgement
	// when one was made less than detectEvery ago: a pipe that is merely
	// slower than the checker must not have every window judged again
	// after each read.
	detectIdle = 20 * time.Millisecond
)

// runFollow is check for one history read as it is written: a FILE
// followed like tail -f until its run's result.json appears beside it, or
// "-", standard input, until it ends. It reports each violation the
// moment it is found, and the verdict at the end.
func runFollow(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, path string, f checkFlags) error {
	opts, err := f.options()
	if err != nil {
		return err
	}
	var src io.Reader = stdin
	name := "standard input"
	if path != "-" {
		file, err := os.Open(path)
		if err != nil {
			return fmt.Errorf("open history %s: %w", path, err)
		}
		defer file.Close()
		src = &tailReader{ctx: ctx, r: file, done: runFinished(path)}
		name = path
	}
	so := check.DefaultStreamOptions()
	so.Options = opts
	var violations []explain.Violation
	stream := check.NewStream(ctx, so, func(v check.StreamViolation) {
		ex := explain.Explain(v.Ops, v.Result, opts)
		violations = append(violations, ex.Violations...)
		if !f.json {
			fmt.Fprintf(stdout, "found          a violation on %s after %d events\n", v.Resource, v.Events)
			_ = explain.WriteViolations(stdout, &ex, nil)
		}
	})
	var tally histories.Tally
	follower := histories.NewFollower(followSink{stream, &tally})
	idle := &idleReader{r: src, detect: stream.Detect}
	rd := histories.NewReader(idle, name)
	var e histories.Event
	for {
		err := rd.Next(&e)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if err := follower.Add(&e, rd.Line()); err != nil {
			return &histories.LineError{File: name, Line: rd.Line(), Err: err}
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("follow %s: %w", name, err)
		}
	}
	follower.Finish()
	checked, found, err := stream.Finish()
	if err != nil {
		return err
	}
	res := explain.Result{Result: checked}
	for _, v := range found {
		ex := explain.Explain(v.Ops, v.Result, opts)
		res.Violations = append(res.Violations, ex.Violations...)
	}
	minimal, err := f.gates.shrinkFollowed(found, res, opts)
	if err != nil {
		return err
	}
	rep := checkReport{Format: runstore.ResultFormat, History: path, Truncated: rd.Partial(), Counts: tally.Counts(),
		Evidence: tally.Evidence(follower.Errors()), Result: res, Minimal: minimal}
	for _, n := range checked.Notes {
		rep.Notes = append(rep.Notes, n.String())
		fmt.Fprintf(stderr, "fencecheck: note: %s\n", n)
	}
	rep.Verdict, rep.Reason = explain.Decide(res, rep.Evidence)
	if err := printCheckReport(stdout, f.json, rep); err != nil {
		return err
	}
	return exitFor(rep.Verdict)
}

// shrinkFollowed is shrink for a followed history: the first cause is
// shrunk within the operations kept of its resource.
func (g *checkGates) shrinkFollowed(found []check.StreamViolation, res explain.Result, opts check.Options) (*explain.Shrunk, error) {
	first := res.First()
	if first < 0 {
		return nil, nil
	}
	for _, v := range found {
		if v.Resource == res.Violations[first].Resource {
			return g.shrink(&histories.History{Operations: v.Ops}, explain.Result{Result: v.Result, Violations: res.Violations[first : first+1]}, opts)
		}
	}
	return nil, nil
}

// followSink hands the Follower's operations to the stream and the tally.
type followSink struct {
	stream *check.Stream
	tally  *histories.Tally
}

func (s followSink) Invoked(op *histories.Operation) { s.stream.Invoked(op) }
func (s followSink) Completed(op *histories.Operation) {
	s.tally.Add(op)
	s.stream.Completed(op)
}
func (s followSink) Other(e *histories.Event) { s.stream.Other(e) }

// runFinished reports whether the run that writes the history at path
// has finished: the harness closes the history before it writes the
// run's result.json beside it, so once that exists, the history's end
// is written.
func runFinished(path string) func() bool {
	result := filepath.Join(filepath.Dir(path), runstore.Result)
	return func() bool {
		_, err := os.Stat(result)
		return err == nil
	}
}

// tailReader reads a file that is still being written, like tail -f: at
// its end it waits and reads again, until done says the writer has
// finished; then it reads what is left, and ends.
type tailReader struct {
	ctx      context.Context
	r        io.Reader
	done     func() bool
	finished bool
}

func (t *tailReader) Read(p []byte) (int, error) {
	for {
		n, err := t.r.Read(p)
		if n > 0 {
			return n, nil
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		if t.finished {
			return 0, io.EOF
		}
		if t.done() {
			t.finished = true // one more read: what was written before the result
			continue
		}
		select {
		case <-t.ctx.Done():
			return 0, t.ctx.Err()
		case <-time.After(followPoll):
		}
	}
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

// followable refuses what a followed check does not do: several files,
// and the outputs that need the whole history (the report, JUnit, the
// visualization).
func (f checkFlags) followable(paths []string) error {
	switch {
	case len(paths) != 1:
		return &usageError{fmt.Errorf("--follow: give one HISTORY file, or - for standard input")}
	case f.html != "" || f.gates.reportDir != "" || f.gates.junit != "":
		return &usageError{fmt.Errorf("--follow: --html, --report and --junit need the whole history; check the file once it is written")}
	}
	return nil
}
