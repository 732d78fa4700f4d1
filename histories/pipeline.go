package histories

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"
)

// Reading a history is on the critical path of checking it: a run of a
// million operations is a quarter of a gigabyte of JSON, and the fast
// checker judges it in a fraction of the time it takes to decode. So Read
// decodes in parallel, in three stages:
//
//	split ──blocks of whole lines──> decode (GOMAXPROCS workers) ──in order──> pair
//
// The splitter cuts the input into blocks that end at a newline, workers
// decode the blocks into events, and the caller pairs the events in file
// order. Errors are reported exactly as the reader reports them, with the same
// file:line, because a block remembers the line of each event and of its
// first malformed line, and the pairer meets them in file order.

// blockBytes is the size the splitter aims for; a block holds about ten
// thousand events, enough to amortize the hand-over between stages.
const blockBytes = 1 << 20

// lineLimit is the shortest line, its newline not counted, that both
// readers refuse as too long.
const lineLimit = maxLineBytes + 1

// block is a run of whole lines and, once decoded, their events.
type block struct {
	data []byte
	eof  bool  // the last block: its last line may lack a newline
	fail error // reading stopped after data: an I/O error or a line too long
	long bool  // fail is a line too long; it is the line after data

	events  []Event
	values  valueBatch
	lines   []int32 // the line of each event, 1-based within the block
	nlines  int
	err     error // the first malformed line, at errLine
	errLine int
	partial bool // the input ended in an unfinished JSON value (see unfinished)
	done    chan struct{}
}

// readParallel is Read for GOMAXPROCS > 1.
// total, when positive, is the input's size in bytes, from which the pairer
// estimates how many operations to make room for.
func readParallel(r io.Reader, name string, workers int, total int64) (*History, error) {
	return readBlocks(r, name, workers, blockBytes, total)
}

// readBlocks is readParallel with blocks of size bytes; tests make them
// tiny to put block boundaries everywhere.
func readBlocks(r io.Reader, name string, workers, size int, total int64) (*History, error) {
	p := pipeline{r: r, name: name, size: size, total: total, quit: make(chan struct{}), free: make(chan *block, 2*workers+2)}
	ordered := make(chan *block, 2*workers)
	work := make(chan *block, workers)
	p.wg.Add(1 + workers)
	go p.split(ordered, work)
	for range workers {
		go p.decode(work)
	}
	h, err := p.pair(ordered)
	close(p.quit)
	for range ordered {
		// Let the splitter finish: Read must not use r after it returns.
	}
	p.wg.Wait()
	return h, err
}

type pipeline struct {
	r     io.Reader
	name  string
	size  int   // blockBytes, except in tests
	total int64 // the input's size, 0 when unknown
	quit  chan struct{}
	free  chan *block // blocks the pairer is done with, for reuse
	wg    sync.WaitGroup
}

// split reads r into blocks and hands each to the pairer (in order) and to
// a worker.
func (p *pipeline) split(ordered, work chan<- *block) {
	defer p.wg.Done()
	defer close(work)
	defer close(ordered)
	var carry []byte
	for {
		b := p.newBlock()
		b.data = append(b.data, carry...)
		carry = p.fill(b, carry[:0])
		select {
		case ordered <- b:
		case <-p.quit:
			return
		}
		work <- b
		if b.eof || b.fail != nil {
			return
		}
	}
}

func (p *pipeline) newBlock() *block {
	select {
	case b := <-p.free:
		*b = block{data: b.data[:0], events: b.events[:0], lines: b.lines[:0], done: make(chan struct{}),
			values: valueBatch{bytes: b.values.bytes[:0], spans: b.values.spans[:0]}}
		return b
	default:
		return &block{data: make([]byte, 0, p.size+p.size/4), done: make(chan struct{})}
	}
}

// fill reads until b holds at least p.size bytes ending in a newline, or the
// input ends or fails. It moves the unfinished last line into carry.
func (p *pipeline) fill(b *block, carry []byte) []byte {
	for {
		if len(b.data) == cap(b.data) {
			b.data = append(b.data, 0)[:len(b.data)]
		}
		n, err := p.r.Read(b.data[len(b.data):cap(b.data)])
		b.data = b.data[:len(b.data)+n]
		if tooLong(b) {
			return carry
		}
		switch {
		case errors.Is(err, io.EOF):
			b.eof = true
			return carry
		case err != nil:
			b.fail = fmt.Errorf("read %s: %w", p.name, err)
			return cut(b, carry)
		case len(b.data) < p.size:
			continue
		}
		if i := bytes.LastIndexByte(b.data, '\n'); i >= 0 {
			carry = append(carry, b.data[i+1:]...)
			b.data = b.data[:i+1]
			return carry
		}
	}
}

// tooLong reports, and makes b report, a line of lineLimit bytes without a
// newline. Only a block's first line can be that long: a block is cut at
// its last newline once it holds p.size bytes, which is less.
func tooLong(b *block) bool {
	if len(b.data) < lineLimit || bytes.IndexByte(b.data[:lineLimit], '\n') >= 0 {
		return false
	}
	b.data, b.fail, b.long = b.data[:0], fmt.Errorf("line longer than %d bytes", maxLineBytes), true
	return true
}

// cut drops the unfinished last line of b, as the reader does when reading
// fails in the middle of a line.
func cut(b *block, carry []byte) []byte {
	i := bytes.LastIndexByte(b.data, '\n')
	b.data = b.data[:i+1]
	return carry
}

// decode turns blocks into events, each worker with its own decoder.
func (p *pipeline) decode(work <-chan *block) {
	defer p.wg.Done()
	dec := newDecoder()
	for b := range work {
		b.decode(dec)
		close(b.done)
	}
}

func (b *block) decode(dec *decoder) {
	dec.values = &b.values
	defer b.setValues()
	data, line := b.data, 0
	for len(data) > 0 {
		line++
		if n := b.scan(dec, data); n > 0 {
			data = data[n:]
			b.lines = append(b.lines, int32(line))
			continue
		}
		raw := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			raw = data[:i+1]
		}
		data = data[len(raw):]
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		b.events = append(b.events, Event{})
		b.values.event = int32(len(b.events) - 1)
		if err := dec.decodeGeneral(raw, &b.events[len(b.events)-1]); err != nil {
			b.events = b.events[:len(b.events)-1]
			if raw[len(raw)-1] != '\n' && unfinished(raw) {
				// The tail a writer killed mid-write leaves; see reader.next.
				b.partial = true
			} else {
				b.err, b.errLine = err, line
			}
			break
		}
		b.lines = append(b.lines, int32(line))
	}
	b.nlines = line
}

// scan decodes the line at the start of data into a new event by the
// decoder's fast path (scan.go) and returns its length; 0, adding no
// event, when the general decoder must read it.
func (b *block) scan(dec *decoder, data []byte) int {
	if len(b.events) == cap(b.events) {
		b.events = append(b.events, Event{})[:len(b.events)]
	}
	i := len(b.events)
	b.values.event = int32(i)
	n := dec.scan(data, &b.events[:i+1][i], false)
	if n > 0 {
		b.events = b.events[:i+1]
	}
	return n
}

// estimate guesses the number of operations in the input from its size and
// the density of invocations in the first block, plus a little, so that
// the operations are allocated once: growing a slice of a million
// operations copies it and touches fresh memory again and again, which
// costs more than decoding.
func (p *pipeline) estimate(first *block) int {
	if p.total <= 0 || len(first.data) == 0 || first.eof {
		return 0
	}
	invokes := 0
	for i := range first.events {
		if first.events[i].Type == TypeInvoke {
			invokes++
		}
	}
	n := float64(p.total) / float64(len(first.data)) * float64(invokes) * 1.05
	return int(min(n, float64(p.total)/32))
}

// setValues gives the events their values, all substrings of one string.
// Values of events dropped after a malformed line are ignored.
func (b *block) setValues() {
	all := string(b.values.bytes)
	for _, sp := range b.values.spans {
		if int(sp.event) < len(b.events) {
			b.events[sp.event].Value = all[sp.start:sp.end]
		}
	}
}

// pair consumes the decoded blocks in order.
func (p *pipeline) pair(ordered <-chan *block) (*History, error) {
	var pr pairer
	base := 0
	for b := range ordered {
		<-b.done
		if base == 0 {
			pr.reserve(p.estimate(b))
		}
		for i := range b.events {
			line := base + int(b.lines[i])
			if err := pr.add(&b.events[i], line); err != nil {
				return nil, &lineError{file: p.name, line: line, err: err}
			}
		}
		switch {
		case b.err != nil:
			return nil, &lineError{file: p.name, line: base + b.errLine, err: b.err}
		case b.partial:
			h := pr.finish()
			h.Truncated = true
			return h, nil
		case b.long:
			return nil, &lineError{file: p.name, line: base + b.nlines + 1, err: b.fail}
		case b.fail != nil:
			return nil, b.fail
		case b.eof:
			return pr.finish(), nil
		}
		base += b.nlines
		select {
		case p.free <- b:
		default:
		}
	}
	return nil, fmt.Errorf("read %s: reader stopped early", p.name)
}
