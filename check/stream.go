package check

import (
	"context"
	"fmt"
	"slices"

	"github.com/fencecheck/fencecheck/histories"
)

// StreamOptions configure a Stream. DefaultStreamOptions gives the
// defaults; a zero field means zero.
type StreamOptions struct {
	Options
	// Window is how many operations of a resource wait, judged only in
	// passing, before a cut judges and releases them: each check has a
	// cost of its own, and a cut every few operations would pay it per
	// operation. It bounds a resource's memory whenever its operations
	// pause often enough to be cut (see Stream).
	Window int
	// Context is how many released operations of a resource are kept,
	// whole windows of them, for explaining a violation: the writes and
	// reads a stale answer is measured against are usually recent, and
	// the explanation names them as a whole-file check does.
	Context int
	_       struct{}
}

// DefaultStreamOptions returns the defaults: windows of 4096 operations
// and 16384 operations of context per resource.
func DefaultStreamOptions() StreamOptions {
	return StreamOptions{Window: 4096, Context: 16384}
}

// StreamViolation is a resource found violated while the history was
// still being read: the operations kept of it (the context, the window
// and its operations in flight, which count as of unknown outcome) and
// Check's result on them, which blames it. package explain words and
// shrinks it as the violation of a history of those operations.
type StreamViolation struct {
	Resource string
	Ops      []histories.Operation // in order of ID
	Result   Result
	// Events is the number of events read when it was found.
	Events int
}

// Stream judges a history as it is read, resource by resource, and
// releases what can no longer change a verdict, so that its memory is
// bounded by the operations in flight and the windows, not the history.
// Feed it the Follower's calls (it is a histories.FollowSink) and call
// Finish at the end; call Detect when the input is idle or a while has
// passed, to find a violation among the operations not yet cut.
//
// # Why releasing is exact
//
// A resource's operations are cut at a gap: a moment T at which none of
// its operations is in flight, every one returned before T
// ("quiescence"), and the next one is invoked after T (intervals are
// closed: a return at T and a call at T overlap, and a tie cancels the
// cut). Every operation before T then precedes every operation after T
// in real time, so any legal order of the whole puts all of the first
// before all of the second; the history is linearizable iff the first
// part is and the second is from a state the first can end in.
//
// The first part must end in one state, and nothing of it may act
// after T. An unknown write may take effect at any time after its call,
// so it may act after T unless the fencing cap ends it: an accepted
// write whose token bars its own (model.Policy.LowestBar) returned
// before T, after which it can only be a no-op. So a cut is taken only
// when every unknown write before T is barred by an accepted write
// before T; none is carried across. (Carrying one as an operation of
// the next window is not exact: a read before T may have shown that it
// took effect, and the next window, which no longer holds that read,
// would be free to judge it a no-op.) Then the writes that take effect
// before T are the accepted ones and some barred unknown ones, whose
// tokens are below the highest accepted token h (strict: at most h,
// and never equal to it while h's write is accepted too). Under strict
// the tokens that take effect increase, so the state at T is h's write.
// Under accept-equal several accepted writes may carry h; the state at T
// is the one that takes effect last, which is known when one of them
// was invoked after all the others returned; when none was, there is no
// cut. For the plain register (model.KindRegister) no cap applies: a
// resource with an unknown write is never cut again, and the state at T
// is the accepted write invoked after every other accepted write
// returned.
//
// That write, the pin, is kept and judged again as the first operation
// of the next window: it precedes every operation there in real time
// and is accepted from the unwritten state (a strict history whose pin
// carries token 0 was already violated), so a legal order of pin and
// window is exactly a legal order of the window from the state at T.
// Applied cut by cut, the verdict of every window is the verdict of the
// whole, and a window is judged before it is released.
//
// Detect judges the current window with its operations in flight as of
// unknown outcome. An unknown outcome allows everything an answer does
// (an accepted or rejected write, a read, a failure are each one of the
// things an unknown operation may have done), and later operations only
// add constraints, so a window found violated this way is violated
// whatever is read next: Detect never reports a violation the whole
// history does not have.
//
// What it does not cover: a resource whose operations never pause all
// at once (many clients overlapping on one resource), or whose unknown
// write no later accepted write bars, is never cut, and its window grows
// with the history, exactly as a whole-file check would hold it. The
// explanation of a violation is given on the context kept (StreamOptions.
// Context): it is the whole-file check's when the operations it names
// and the questions it asks of the resource's history (which writes
// wrote a value, which was the highest token sent by then) lie within
// the context; a stale read of a value released long before is
// explained against the oldest operations kept.
type Stream struct {
	ctx     context.Context
	opts    StreamOptions
	byName  map[string]*streamResource
	dirty   []*streamResource // resources with operations Detect has not judged
	found   func(StreamViolation)
	events  int
	res     Result
	grants  []histories.Event // lease grants, for CheckIssuer
	timeout []string
	notes   map[NoteKind]bool
}

// NewStream returns a Stream that judges with opts and calls found, on
// the caller's goroutine, for each resource found violated, once, the
// moment it is found. ctx stops the checks.
func NewStream(ctx context.Context, opts StreamOptions, found func(StreamViolation)) *Stream {
	return &Stream{ctx: ctx, opts: opts, byName: make(map[string]*streamResource), found: found,
		res: Result{Checker: opts.Checker.String(), Model: opts.Kind.String(), Policy: opts.Policy.String()}, notes: make(map[NoteKind]bool)}
}

func (s *Stream) resource(name string) *streamResource {
	r, ok := s.byName[name]
	if !ok {
		r = &streamResource{name: name, open: make(map[int]histories.Operation)}
		s.byName[name] = r
	}
	return r
}

// Invoked takes an operation that began.
func (s *Stream) Invoked(op *histories.Operation) {
	s.events++
	r := s.resource(op.Resource)
	if r.violated {
		return
	}
	if r.cutPending {
		r.cutPending = false
		if op.Call > r.cutAt {
			r.release(s.opts.Context)
		}
	}
	r.open[op.ID] = *op
	s.markDirty(r)
}

// Completed takes an operation that ended.
func (s *Stream) Completed(op *histories.Operation) {
	s.events++
	r := s.resource(op.Resource)
	if r.violated {
		return
	}
	delete(r.open, op.ID)
	r.window = append(r.window, *op)
	if op.Return != histories.Infinity {
		r.maxReturn = max(r.maxReturn, op.Return)
	}
	s.markDirty(r)
	if len(r.open) == 0 && len(r.window) >= s.opts.Window {
		s.tryCut(r)
	}
}

// Other takes an event of another actor: the lease grants are kept for
// the issuer's invariant.
func (s *Stream) Other(e *histories.Event) {
	s.events++
	if e.Actor == histories.ActorLease && e.F == histories.FAcquire && e.HasToken {
		s.grants = append(s.grants, *e)
	}
}

func (s *Stream) markDirty(r *streamResource) {
	if !r.dirty {
		r.dirty = true
		s.dirty = append(s.dirty, r)
	}
}

// tryCut judges r's window at a moment when none of its operations is
// in flight; when it holds, and the state at the end is known, the
// window is released at the next invocation after its last return.
func (s *Stream) tryCut(r *streamResource) {
	ops := r.judged(false)
	res, ok := s.judge(r, ops)
	if !ok {
		return
	}
	if pin, ok := stateAtCut(ops, s.opts.Options); ok {
		r.cutPending, r.cutAt, r.nextPin = true, r.maxReturn, pin
		if pin != nil {
			p := *pin // ops goes; keep the one operation
			r.nextPin = &p
		}
		r.cutStats = res
	}
}

// Detect judges every resource with operations not judged since the last
// Detect, its operations in flight as of unknown outcome, and reports
// those found violated.
func (s *Stream) Detect() {
	dirty := s.dirty
	s.dirty = nil
	for _, r := range dirty {
		r.dirty = false
		if !r.violated {
			s.judge(r, r.judged(true))
		}
	}
}

// judge checks ops, r's, and reports r when they are violated; it
// returns the result and whether they held.
func (s *Stream) judge(r *streamResource, ops []histories.Operation) (Result, bool) {
	res, err := Check(s.ctx, ops, s.opts.Options)
	if err != nil {
		r.err = err // Finish returns it
		return res, false
	}
	s.res.Elapsed += res.Elapsed
	for _, n := range res.Notes {
		if !s.notes[n.Kind] {
			s.notes[n.Kind] = true
			s.res.Notes = append(s.res.Notes, n)
		}
	}
	switch res.Verdict {
	case Violated:
		s.violated(r)
		return res, false
	case Inconclusive:
		return res, false
	}
	return res, true
}

// violated reports r with the operations kept of it, and stops judging it.
func (s *Stream) violated(r *streamResource) {
	ops := r.kept()
	res, err := Check(s.ctx, ops, s.opts.Options)
	if err != nil || res.Verdict != Violated {
		// The context judged with the window must be violated too (it
		// is the window's prefix from an earlier cut); should the check
		// give up on it, the window alone stands as the evidence.
		ops = r.judged(true)
		res, _ = Check(s.ctx, ops, s.opts.Options)
	}
	r.violated = true
	r.window, r.context, r.open = nil, nil, nil
	v := StreamViolation{Resource: r.name, Ops: ops, Result: res, Events: s.events}
	r.violation = &v
	s.found(v)
}

// Finish ends the stream: the window of every resource not found
// violated is judged, and the result is the history's, with the
// violations found (in order of the resources' names).
func (s *Stream) Finish() (Result, []StreamViolation, error) {
	s.dirty = nil
	names := make([]string, 0, len(s.byName))
	for name := range s.byName {
		names = append(names, name)
	}
	slices.Sort(names)
	var violations []StreamViolation
	for _, name := range names {
		r := s.byName[name]
		if !r.violated {
			r.cutPending = false
			res, ok := s.judge(r, r.judged(true))
			if !ok && !r.violated && r.err == nil {
				s.timeout = append(s.timeout, name)
			}
			s.res.CappedWrites += res.CappedWrites
			s.res.DroppedWrite += res.DroppedWrite
		}
		if r.err != nil {
			return Result{}, nil, fmt.Errorf("check %s: %w", name, r.err)
		}
		if r.violation != nil {
			violations = append(violations, *r.violation)
			s.res.Blames = append(s.res.Blames, r.violation.Result.Blames...)
		}
		s.res.CappedWrites += r.capped
		s.res.DroppedWrite += r.dropped
	}
	s.res.Resources = len(names)
	s.res.TimedOut = s.timeout
	s.res.Verdict = Held
	switch {
	case len(violations) > 0:
		s.res.Verdict = Violated
	case len(s.timeout) > 0:
		s.res.Verdict = Inconclusive
	}
	s.res.Issuer = CheckIssuer(s.grants)
	return s.res, violations, nil
}

// Kept returns the number of operations the stream holds: in flight,
// in windows and as context.
func (s *Stream) Kept() int {
	n := 0
	for _, r := range s.byName {
		n += len(r.open) + len(r.window) + r.contextOps
	}
	return n
}

// streamResource is what a Stream holds of one resource.
type streamResource struct {
	name string
	// pin is the write whose state the window starts from (see Stream),
	// nil while nothing was cut or nothing written before the cut.
	pin    *histories.Operation
	window []histories.Operation       // ended since the cut, in order of completion
	open   map[int]histories.Operation // in flight, by ID
	dirty  bool                        // Detect has not judged the window since it changed
	// maxReturn is the latest return in the window; a cut found at
	// quiescence (cutPending) is taken at the next invocation after it,
	// with nextPin as the new pin.
	maxReturn  int64
	cutPending bool
	cutAt      int64
	nextPin    *histories.Operation
	cutStats   Result
	// context holds released windows, oldest first, each led by its pin.
	context    [][]histories.Operation
	contextOps int
	// The fencing cap's counts of the released windows.
	capped, dropped int
	violated        bool
	violation       *StreamViolation
	err             error
}

// judged returns the pin and the window, with the operations in flight
// when open is set, in order of ID: what a check of the window judges.
func (r *streamResource) judged(open bool) []histories.Operation {
	ops := make([]histories.Operation, 0, len(r.window)+len(r.open)+1)
	if r.pin != nil {
		ops = append(ops, *r.pin)
	}
	ops = append(ops, r.window...)
	if open {
		for _, op := range r.open {
			ops = append(ops, op)
		}
	}
	sortOps(ops)
	return ops
}

// kept returns every operation kept of r: the context (led by its oldest
// pin), the window and the operations in flight, once each, by ID.
func (r *streamResource) kept() []histories.Operation {
	var ops []histories.Operation
	for _, w := range r.context {
		ops = append(ops, w...)
	}
	ops = append(ops, r.judged(true)...)
	sortOps(ops)
	return slices.CompactFunc(ops, func(a, b histories.Operation) bool { return a.ID == b.ID })
}

func sortOps(ops []histories.Operation) {
	slices.SortFunc(ops, func(a, b histories.Operation) int { return a.ID - b.ID })
}

// release moves the window, judged and held, to the context, and starts
// the next window from the pin found at the cut. The oldest windows of
// the context go while the rest hold at least limit operations.
func (r *streamResource) release(limit int) {
	done := r.judged(false)
	r.capped += r.cutStats.CappedWrites
	r.dropped += r.cutStats.DroppedWrite
	r.pin = r.nextPin
	r.nextPin = nil
	r.window = make([]histories.Operation, 0, len(done))
	r.maxReturn = 0
	if r.pin != nil {
		r.maxReturn = r.pin.Return
	}
	r.context = append(r.context, done)
	r.contextOps += len(done)
	for len(r.context) > 1 && r.contextOps-len(r.context[0]) >= limit {
		r.contextOps -= len(r.context[0])
		r.context[0] = nil
		r.context = r.context[1:]
	}
	if limit == 0 {
		r.context, r.contextOps = nil, 0
	}
}
