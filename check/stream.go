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

// DefaultStreamOptions returns the defaults: windows of 2048 operations
// and 4096 operations of context per resource, which for 50 resources
// keep about 300,000 operations at most, a few tens of MB.
func DefaultStreamOptions() StreamOptions {
	return StreamOptions{Window: 2048, Context: 4096}
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
// The state before the run is the one operation that begins before its
// event: an accepted write at histories.InitialTime, before every
// operation, whose event may come after reads of the resource (the
// harness reads a resource, then states what it found). A window cut
// before it came was judged from the unwritten state, and Detect would
// judge reads that returned before the latest event against that state
// too, where the statement may yet make them legal. The Follower refuses
// a resource's initial state once a write of it began, as Read
// does; until then, or until the state came, a resource is neither cut
// nor judged by Detect (one that is only ever read is held whole, as a
// whole-file check holds it).
//
// Detect judges the current window with its operations in flight, and
// those that returned at the time of the latest event or later, as of
// unknown outcome. An unknown outcome allows everything an answer does
// (an accepted or rejected write, a read, a failure are each one of the
// things an unknown operation may have done). Every operation still to
// come begins at that time or later (a state before the run aside, see
// above), so after every operation that returned before it, in real
// time: a legal order of the window and what comes next, cut after the
// last of those and with the unknown ones left as no-ops, is a legal
// order of the window. So a window found violated this way is violated
// whatever is read next: Detect never reports a violation the whole
// history does not have. (Without the second part it would: a read that
// returns at t a value whose write begins at t is legal, intervals being
// closed, and the write's line may come next.)
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
	ctx    context.Context
	opts   StreamOptions
	byName map[string]*streamResource
	dirty  []*streamResource // resources with operations Detect has not judged
	found  func(StreamViolation)
	events int
	// now is the time of the latest event: every operation to come
	// begins at now or later.
	now     int64
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
		r = &streamResource{name: name}
		s.byName[name] = r
	}
	return r
}

// Invoked takes an operation that began. It is where a resource is cut:
// none of its operations in flight, every one returned before this one
// began, and a window's worth of them.
func (s *Stream) Invoked(op *histories.Operation) {
	s.events++
	s.now = max(s.now, op.Call)
	r := s.resource(op.Resource)
	if r.violated {
		return
	}
	if op.IsWrite() {
		r.settled = true // the Follower refuses an initial state from now on
	}
	if r.settled && len(r.open) == 0 && len(r.window) >= s.opts.Window && op.Call > r.maxReturn {
		s.cut(r)
	}
	if r.violated {
		return
	}
	r.open = append(r.open, *op)
	s.markDirty(r)
}

// Completed takes an operation that ended.
func (s *Stream) Completed(op *histories.Operation) {
	s.events++
	r := s.resource(op.Resource)
	if r.violated {
		return
	}
	r.ended(op.ID)
	if op.Initial {
		r.settled = true
	}
	r.window = append(r.window, *op)
	if op.Return != histories.Infinity {
		r.maxReturn = max(r.maxReturn, op.Return)
		s.now = max(s.now, op.Return)
	}
	s.markDirty(r)
}

// Other takes an event of another actor: the lease grants are kept for
// the issuer's invariant.
func (s *Stream) Other(e *histories.Event) {
	s.events++
	s.now = max(s.now, e.Time)
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

// cut judges r's window, which is final: none of its operations is in
// flight and the next one began after they all returned. When it holds
// and the state at its end is certain, the window is released.
func (s *Stream) cut(r *streamResource) {
	ops := r.judged(false, histories.Infinity)
	res, ok := s.judge(r, ops, histories.Infinity)
	if !ok {
		return
	}
	pin, ok := stateAtCut(ops, s.opts.Options)
	if !ok {
		return
	}
	if pin != nil {
		p := *pin // ops goes; keep the one operation
		pin = &p
	}
	r.release(ops, pin, res, s.opts.Context)
}

// Detect judges every resource with operations not judged since the last
// Detect, its operations in flight, and those that returned at the time
// of the latest event or later, as of unknown outcome (see Stream), and
// reports those found violated.
func (s *Stream) Detect() {
	dirty := s.dirty
	s.dirty = nil
	for _, r := range dirty {
		r.dirty = false
		if !r.violated && r.settled {
			s.judge(r, r.judged(true, s.now), s.now)
		}
	}
}

// judge checks ops, r's, and reports r when they are violated (now is
// the time from which its operations count as in flight); it returns the
// result and whether they held.
func (s *Stream) judge(r *streamResource, ops []histories.Operation, now int64) (Result, bool) {
	res, err := checkOperations(s.ctx, ops, s.opts.Options)
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
		s.violated(r, now)
		return res, false
	case Inconclusive:
		return res, false
	}
	return res, true
}

// violated reports r with the operations kept of it, and stops judging it.
func (s *Stream) violated(r *streamResource, now int64) {
	ops := r.kept(now)
	res, err := checkOperations(s.ctx, ops, s.opts.Options)
	if err != nil || res.Verdict != Violated {
		// The context judged with the window must be violated too (it
		// is the window's prefix from an earlier cut); should the check
		// give up on it, the window alone stands as the evidence.
		ops = r.judged(true, now)
		res, _ = checkOperations(s.ctx, ops, s.opts.Options)
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
			res, ok := s.judge(r, r.judged(true, histories.Infinity), histories.Infinity)
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
	window []histories.Operation // ended since the cut, in order of completion
	open   []histories.Operation // in flight, a few: one per client at most
	dirty  bool                  // Detect has not judged the window since it changed
	// maxReturn is the latest return in the window: the next operation
	// must begin after it for a cut.
	maxReturn int64
	// settled is set once no state before the run can be stated any more:
	// a write of the resource began, or its initial state came. Until
	// then the resource is neither cut nor judged by Detect (see Stream).
	settled bool
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
// An operation that returned at now or later counts as in flight: one
// still to come may begin at now, and overlap it.
func (r *streamResource) judged(open bool, now int64) []histories.Operation {
	ops := make([]histories.Operation, 0, len(r.window)+len(r.open)+1)
	if r.pin != nil {
		ops = append(ops, *r.pin)
	}
	ops = append(ops, r.window...)
	if open {
		ops = append(ops, r.open...)
	}
	sortOps(ops)
	if now != histories.Infinity {
		relax(ops, now)
	}
	return ops
}

// relax makes every operation of ops that returned at now or later one
// of unknown outcome, which allows all its answer did, and more.
func relax(ops []histories.Operation, now int64) {
	for i := range ops {
		if op := &ops[i]; op.Return != histories.Infinity && op.Return >= now && op.Status != histories.StatusFailed {
			op.Status, op.Return = histories.StatusUnknown, histories.Infinity
		}
	}
}

// kept returns every operation kept of r: the context (led by its oldest
// pin), the window and the operations in flight, once each, by ID, as
// judged counts them at now.
func (r *streamResource) kept(now int64) []histories.Operation {
	var ops []histories.Operation
	for _, w := range r.context {
		ops = append(ops, w...)
	}
	ops = append(ops, r.judged(true, now)...)
	sortOps(ops)
	return slices.CompactFunc(ops, func(a, b histories.Operation) bool { return a.ID == b.ID })
}

// ended removes the operation id from those in flight.
func (r *streamResource) ended(id int) {
	for i := range r.open {
		if r.open[i].ID == id {
			last := len(r.open) - 1
			r.open[i] = r.open[last]
			r.open[last] = histories.Operation{} // let its strings go
			r.open = r.open[:last]
			return
		}
	}
}

func sortOps(ops []histories.Operation) {
	slices.SortFunc(ops, func(a, b histories.Operation) int { return a.ID - b.ID })
}

// release moves the window, done (led by the pin), judged and held as
// res, to the context, and starts the next window from pin. The oldest
// windows of the context go while the rest hold at least limit
// operations.
func (r *streamResource) release(done []histories.Operation, pin *histories.Operation, res Result, limit int) {
	r.capped += res.CappedWrites
	r.dropped += res.DroppedWrite
	r.pin = pin
	r.window = make([]histories.Operation, 0, len(done))
	r.maxReturn = 0
	if pin != nil {
		r.maxReturn = pin.Return
	}
	if limit == 0 {
		return
	}
	r.context = append(r.context, done)
	r.contextOps += len(done)
	for len(r.context) > 1 && r.contextOps-len(r.context[0]) >= limit {
		r.contextOps -= len(r.context[0])
		r.context[0] = nil
		r.context = r.context[1:]
	}
}
