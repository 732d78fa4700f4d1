package histories

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// RecorderOptions tune a Recorder. The zero value is usable.
type RecorderOptions struct {
	// Clock stamps events; nil means Go's monotonic clock, reading 0 when
	// the Recorder is made.
	Clock Clock
	// FlushInterval bounds how old the unflushed part of the history can
	// be; a killed run loses at most this much. Default 100 ms.
	FlushInterval time.Duration
	// BufferBytes bounds the memory held between flushes. Default 64 KiB.
	BufferBytes int
	// Retain keeps a copy of every event in memory for Events, so that a
	// run can be checked without reading its file back.
	Retain bool
	// Observer, if set, sees every event as it is recorded (see
	// Observer).
	Observer Observer
}

// Recorder appends events to a history as they happen. It is safe for
// concurrent use: Record assigns the index and the time under one lock, so
// the file is in index order and time strictly increases along it.
//
// The first line is the header (Header), at index 0; Record numbers
// events from FirstIndex.
//
// Events are encoded into a bounded buffer that is written out when it
// fills, at least every FlushInterval, and on Close. A run that is killed
// therefore leaves a history that is complete up to its last flush.
type Recorder struct {
	mu sync.Mutex // guards the fields below up to wmu
	// wmu serializes writes to w. It is taken while mu is held and mu is
	// then released, so a full buffer is written out while other
	// goroutines go on recording into a fresh one, and writes still reach
	// the file in index order.
	wmu    sync.Mutex
	spare  chan []byte
	w      io.Writer
	closer io.Closer
	clock  Clock
	next   int64
	last   int64
	buf    []byte
	limit  int
	retain bool
	events []Event
	obs    Observer
	err    error
	closed bool

	stop chan struct{}
	done chan struct{}
}

// NewRecorder returns a Recorder writing to w. If w is an io.Closer, Close
// closes it.
func NewRecorder(w io.Writer, opts RecorderOptions) *Recorder {
	if opts.Clock == nil {
		opts.Clock = newMonotonicClock()
	}
	if opts.FlushInterval <= 0 {
		opts.FlushInterval = 100 * time.Millisecond
	}
	if opts.BufferBytes <= 0 {
		opts.BufferBytes = 64 << 10
	}
	r := &Recorder{
		w:      w,
		clock:  opts.Clock,
		buf:    make([]byte, 0, opts.BufferBytes+1024),
		limit:  opts.BufferBytes,
		retain: opts.Retain,
		obs:    opts.Observer,
		stop:   make(chan struct{}),
		done:   make(chan struct{}),
		spare:  make(chan []byte, 2),
	}
	if c, ok := w.(io.Closer); ok {
		r.closer = c
	}
	header := Header()
	r.buf = AppendJSON(r.buf, &header)
	r.next = FirstIndex
	go r.flushLoop(opts.FlushInterval)
	return r
}

// Record stamps e with the next index and the current time, then appends
// it. It updates e in place so the caller knows when its event happened.
func (r *Recorder) Record(e *Event) {
	r.mu.Lock()
	if r.closed {
		if r.err == nil {
			r.err = fmt.Errorf("record: recorder closed")
		}
		r.mu.Unlock()
		return
	}
	now := r.clock.Now()
	if r.next > FirstIndex && now <= r.last {
		// Strictly increasing: the file's order is the order things
		// happened, and a checker treats equal times as concurrent, so a
		// completion and the invocation after it must not share one (the
		// virtual clock stamps many events at one instant). A clock that
		// goes backwards cannot break the format either. The header's
		// time 0 does not count: the first event keeps its clock's time.
		now = r.last + 1
	}
	r.last = now
	e.Index, e.Time = r.next, now
	r.next++
	r.buf = AppendJSON(r.buf, e)
	if r.retain {
		r.events = append(r.events, *e)
	}
	if r.obs != nil {
		r.obs.Observe(*e)
	}
	if len(r.buf) >= r.limit {
		r.handOff() // releases mu
		return
	}
	r.mu.Unlock()
}

// handOff swaps in an empty buffer, releases mu and writes the full one.
// It must be called with mu held.
func (r *Recorder) handOff() {
	full := r.buf
	select {
	case r.buf = <-r.spare:
	default:
		r.buf = make([]byte, 0, cap(full))
	}
	r.wmu.Lock()
	r.mu.Unlock()
	_, err := r.w.Write(full)
	r.wmu.Unlock()
	select {
	case r.spare <- full[:0]:
	default:
	}
	if err != nil {
		r.mu.Lock()
		if r.err == nil {
			r.err = fmt.Errorf("write history: %w", err)
		}
		r.mu.Unlock()
	}
}

// Events returns a copy of the events recorded so far, if the recorder was
// created with Retain. The header is not one of them: Write adds it
// again when the events are written to a file.
func (r *Recorder) Events() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Event(nil), r.events...)
}

// Close flushes, stops the background flusher and closes the underlying
// writer if it is a Closer, and returns the first error of writing the
// history (or of recording after Close). It is safe to call more than
// once.
func (r *Recorder) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return r.err
	}
	r.flushLocked()
	r.closed = true
	r.mu.Unlock()
	close(r.stop)
	<-r.done
	if r.closer != nil {
		if err := r.closer.Close(); err != nil && r.err == nil {
			r.err = fmt.Errorf("close history: %w", err)
		}
	}
	return r.err
}

// flushLocked writes the buffer synchronously, waiting for a hand-off in
// progress so that the order of writes is kept. It must be called with mu
// held.
func (r *Recorder) flushLocked() {
	r.wmu.Lock()
	defer r.wmu.Unlock()
	if len(r.buf) == 0 || r.err != nil {
		r.buf = r.buf[:0]
		return
	}
	if _, err := r.w.Write(r.buf); err != nil {
		r.err = fmt.Errorf("write history: %w", err)
	}
	r.buf = r.buf[:0]
}

func (r *Recorder) flushLoop(every time.Duration) {
	defer close(r.done)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-r.stop:
			return
		case <-t.C:
			r.mu.Lock()
			r.flushLocked()
			r.mu.Unlock()
		}
	}
}
