package histgen

import (
	"cmp"
	"container/heap"
	"fmt"
	"math/rand/v2"

	"github.com/fencecheck/fencecheck/histories"
)

// Stream generates a valid history like Generate, with cfg's clients,
// resources, intervals, reads, unknown and failed outcomes and lease-like
// tokens (not cfg.Tokens, cfg.Initial or cfg.UnknownReads), and hands its
// events to emit in history order, the header first, without holding
// the history: its memory is the operations in flight. That is what a
// history longer than memory (a soak run's) is generated with.
//
// When violateAt ≥ 0, the first read from the violateAt-th operation on
// (counted in order of generation) that can be made stale is: it returns
// the value of an accepted write after a write with a higher token had
// been accepted and had returned before the read began, a certain
// violation under both policies (as BreakStaleRead, but against the
// write that came just before, as a stale cache would answer). It
// returns the operation ID of that read, -1 when none was planted.
func Stream(r *rand.Rand, cfg Config, violateAt int, emit func(*histories.Event) error) (int, error) {
	return StreamNotify(r, cfg, violateAt, emit, nil)
}

// StreamNotify is Stream that calls completed, when not nil, right after
// emit was given the completion of the planted stale read: the moment a
// measurement of how soon a checker reports it starts from.
func StreamNotify(r *rand.Rand, cfg Config, violateAt int, emit func(*histories.Event) error, completed func(id int)) (int, error) {
	g := &streamGen{completed: completed, r: r, cfg: cfg, violateAt: violateAt, planted: -1, emit: emit, index: histories.FirstIndex,
		issued: make(map[string]uint64), recent: make(map[string][]accepted)}
	h := histories.Header()
	if err := emit(&h); err != nil {
		return -1, err
	}
	return g.run()
}

// accepted is a write the simulated register accepted.
type accepted struct {
	token uint64
	value string
	ret   int64
}

// recentAccepted is how many accepted writes per resource a stale read
// may be planted against.
const recentAccepted = 8

type streamGen struct {
	r         *rand.Rand
	cfg       Config
	violateAt int
	planted   int
	emit      func(*histories.Event) error
	index     int64
	seq       int // operations generated
	nextID    int // IDs, given in order of invocation events
	issued    map[string]uint64
	recent    map[string][]accepted
	regs      map[string]*register
	clients   clientHeap
	lins      opHeap // generated, not yet applied, by linearization point
	events    eventHeap
	names     []string
	value     int
	completed func(id int)
}

type streamOp struct {
	op
	seq     int
	applied bool
	planted bool // the stale read
}

func (g *streamGen) run() (int, error) {
	clients := max(g.cfg.Clients, 1)
	g.names = make([]string, max(g.cfg.Resources, 1))
	for i := range g.names {
		g.names[i] = fmt.Sprintf("r%d", i)
	}
	g.regs = make(map[string]*register)
	held := make([]map[string]uint64, clients)
	for c := range clients {
		heap.Push(&g.clients, &streamClient{id: c, process: c, held: held[c]})
	}
	nextProcess := clients
	for g.seq < g.cfg.Ops {
		c := g.clients[0]
		o := g.generate(c)
		if o.fate == vanishes {
			c.process = nextProcess
			nextProcess++
		}
		heap.Fix(&g.clients, 0)
		if err := g.advance(g.clients[0].free); err != nil {
			return -1, err
		}
	}
	return g.planted, g.advance(histories.Infinity)
}

// generate makes client c's next operation.
func (g *streamGen) generate(c *streamClient) *streamOp {
	call := c.free + g.r.Int64N(g.cfg.Gap+1)
	ret := call + g.r.Int64N(g.cfg.Duration+1)
	o := &streamOp{seq: g.seq}
	g.seq++
	o.client, o.lin, o.tie = c.id, call+g.r.Int64N(ret-call+1), g.r.Uint64()
	o.Process, o.Resource, o.Call, o.Return = c.process, g.names[g.r.IntN(len(g.names))], call, ret
	o.F = histories.FWrite
	if g.r.Float64() < g.cfg.ReadRatio {
		o.F = histories.FRead
	}
	unknown := g.cfg.Unknown
	if o.F == histories.FRead {
		unknown = 0
	}
	switch x := g.r.Float64(); {
	case x < g.cfg.Failed:
		o.fate = fails
	case x < g.cfg.Failed+unknown:
		o.fate = vanishes
		o.reach = g.r.IntN(2) == 0
	}
	if o.F == histories.FWrite {
		g.token(c, o)
	}
	c.free = ret
	heap.Push(&g.lins, o)
	end := ret
	if o.fate == vanishes {
		end = call // the info completion follows the invocation at once
	}
	heap.Push(&g.events, streamEvent{o.Call, o.seq, false, o})
	heap.Push(&g.events, streamEvent{end, o.seq, true, o})
	return o
}

// token gives a write the next token of its resource, or its client's
// last one there.
func (g *streamGen) token(c *streamClient, o *streamOp) {
	o.Value = fmt.Sprintf("%s-v%d", o.Resource, g.value)
	g.value++
	o.HasToken, o.HasValue = true, true
	if c.held == nil {
		c.held = make(map[string]uint64)
	}
	t, ok := c.held[o.Resource]
	if !ok || g.r.Float64() < g.cfg.Acquire {
		g.issued[o.Resource]++
		t = g.issued[o.Resource]
		c.held[o.Resource] = t
	}
	o.Token = t
}

// advance applies every operation whose linearization point is before
// horizon, the earliest any operation not generated yet can begin, and
// emits every event before it.
func (g *streamGen) advance(horizon int64) error {
	for len(g.lins) > 0 && g.lins[0].lin < horizon {
		g.apply(heap.Pop(&g.lins).(*streamOp))
	}
	for len(g.events) > 0 && g.events[0].time < horizon {
		ev := heap.Pop(&g.events).(streamEvent)
		if err := g.write(ev); err != nil {
			return err
		}
	}
	return nil
}

func (g *streamGen) apply(o *streamOp) {
	reg := g.regs[o.Resource]
	if reg == nil {
		reg = &register{}
		g.regs[o.Resource] = reg
	}
	if o.F == histories.FRead {
		read(g.r, g.cfg, &o.op, reg)
		g.plant(o)
	} else {
		write(g.r, g.cfg, &o.op, reg)
		if o.Status == histories.StatusAccepted {
			rec := append(g.recent[o.Resource], accepted{o.Token, o.Value, o.Return})
			if len(rec) > recentAccepted {
				rec = rec[1:]
			}
			g.recent[o.Resource] = rec
		}
	}
	o.applied = true
}

// plant makes read o stale, if it is the one to make and can be.
func (g *streamGen) plant(o *streamOp) {
	if g.planted >= 0 || g.violateAt < 0 || o.seq < g.violateAt || o.Status != histories.StatusOK {
		return
	}
	rec := g.recent[o.Resource]
	newest := -1
	for i, a := range rec {
		if a.ret < o.Call && (newest < 0 || a.token > rec[newest].token) {
			newest = i
		}
	}
	if newest < 0 {
		return
	}
	for i := len(rec) - 1; i >= 0; i-- {
		if a := rec[i]; a.token < rec[newest].token {
			o.Value, o.HasValue, o.Token = a.value, true, a.token
			o.planted = true
			g.planted = 0 // set to its ID when its invocation is written
			return
		}
	}
}

func (g *streamGen) write(ev streamEvent) error {
	o := ev.op
	var e histories.Event
	if !ev.finish {
		o.ID = g.nextID
		g.nextID++
		o.InvokeIndex = g.index
		e, _ = o.Events()
	} else {
		if !o.applied && o.fate != vanishes {
			return fmt.Errorf("histgen: operation %d completes before it was applied", o.seq)
		}
		if o.planted {
			g.planted = o.ID
		}
		switch {
		case o.fate == vanishes:
			o.Status = histories.StatusUnknown
		case o.fate == fails:
			o.Status = histories.StatusFailed
		}
		o.CompleteIndex = g.index
		_, e = o.Events()
	}
	e.Index, e.Time = g.index, ev.time
	g.index++
	if err := g.emit(&e); err != nil {
		return err
	}
	if ev.finish && o.planted && g.completed != nil {
		g.completed(o.ID)
	}
	return nil
}

// streamClient is a client of the simulation.
type streamClient struct {
	id, process int
	free        int64 // when its last operation returned
	held        map[string]uint64
}

type clientHeap []*streamClient

func (h clientHeap) Len() int { return len(h) }
func (h clientHeap) Less(i, j int) bool {
	if h[i].free != h[j].free {
		return h[i].free < h[j].free
	}
	return h[i].id < h[j].id
}
func (h clientHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *clientHeap) Push(x any)   { *h = append(*h, x.(*streamClient)) }
func (h *clientHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

type opHeap []*streamOp

func (h opHeap) Len() int { return len(h) }
func (h opHeap) Less(i, j int) bool {
	if h[i].lin != h[j].lin {
		return h[i].lin < h[j].lin
	}
	return h[i].tie < h[j].tie
}
func (h opHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *opHeap) Push(x any)   { *h = append(*h, x.(*streamOp)) }
func (h *opHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// streamEvent is an invocation or completion to write at time.
type streamEvent struct {
	time   int64
	seq    int
	finish bool
	op     *streamOp
}

type eventHeap []streamEvent

func (h eventHeap) Len() int { return len(h) }
func (h eventHeap) Less(i, j int) bool {
	a, b := h[i], h[j]
	if c := cmp.Compare(a.time, b.time); c != 0 {
		return c < 0
	}
	if a.seq != b.seq {
		return a.seq < b.seq
	}
	return !a.finish && b.finish
}
func (h eventHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *eventHeap) Push(x any)   { *h = append(*h, x.(streamEvent)) }
func (h *eventHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
