// Package tcpproxy is a fault-injecting TCP proxy between the workers and
// any receiver that speaks over TCP: PostgreSQL, MariaDB/MySQL, Redis,
// HTTP. Where nemesis/proxy reads whole HTTP requests and knows a write
// from a read, this proxy knows nothing of the protocol: it relays bytes,
// chunk by chunk, and its faults act on those chunks the way a network
// does, below every client library:
//
//	worker ──bytes──> Proxy ──> Toxic 1 ──> Toxic 2 ──> … ──> receiver
//	worker <──bytes── Proxy <── Toxic 1 <── Toxic 2 <── … <── receiver
//
// Every toxic is a nemesis.Fault: the run's schedule switches it on and
// off (recorded as start/stop windows), each action it takes is recorded
// as begin/end nemesis events through the Env, and a Selector scripts
// exactly which chunks it acts on, so that a test fires a fault on an
// event (the chunk that carries a write) rather than after a sleep.
//
// What it cannot do: it does not know which resource or token a chunk
// carries, so it cannot hold a write until a newer token is accepted
// (nemesis/proxy's hold, for HTTP receivers, does), and it sees TLS
// traffic only as opaque bytes.
package tcpproxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fencecheck/fencecheck/nemesis/internal/toxic"
)

// Direction is the way a chunk travels.
type Direction int

// The directions; Both is for toxics that act either way.
const (
	Up   Direction = 1 << iota // client to server: requests
	Down                       // server to client: answers
	Both = Up | Down
)

func (d Direction) String() string {
	switch d {
	case Up:
		return "client to server"
	case Down:
		return "server to client"
	case Both:
		return "both ways"
	}
	return fmt.Sprintf("Direction(%d)", int(d))
}

// Chunk is what one read from one side of a connection returned: the
// unit the toxics act on. TCP keeps no message boundaries, so a request
// may span several chunks or share one with the next; the client
// libraries fencecheck uses send a statement or a command in one write,
// which a loopback connection delivers as one chunk.
type Chunk struct {
	Conn int64 // 1 for the first connection through the proxy
	Seq  int64 // 1 for the first chunk of Conn in Dir
	Dir  Direction
	Data []byte
}

func (c *Chunk) String() string {
	return fmt.Sprintf("%d bytes %s on connection %d", len(c.Data), c.Dir, c.Conn)
}

// Verdict is what a toxic decides for a chunk.
type Verdict int

const (
	// Forward passes the chunk on (to the next toxic, then the other side).
	Forward Verdict = iota
	// Swallow drops the chunk and every later one of the connection, both
	// ways, and keeps the connection open: the peers wait for bytes that
	// never come, until one of them gives up and closes.
	Swallow
	// ResetBoth drops the chunk and resets the connection on both sides
	// (a TCP RST, not an orderly close).
	ResetBoth
)

// Toxic acts on the chunks through the proxy. Pipe may block (latency,
// hold) until ctx ends; it is called for the chunks of one direction of
// one connection in order.
type Toxic interface {
	Pipe(ctx context.Context, c *Conn, ch *Chunk) Verdict
}

// DialTimeout bounds the connection to the receiver.
const DialTimeout = 5 * time.Second

// Proxy relays TCP connections to one receiver through a chain of toxics.
type Proxy struct {
	upstream string
	toxics   []Toxic
	ln       net.Listener
	ctx      context.Context
	cancel   context.CancelFunc
	seq      atomic.Int64
	answers  answers
	wg       sync.WaitGroup

	mu    sync.Mutex
	conns map[int64]*Conn
}

// Start listens on a free loopback port and relays to upstream (host:port).
func Start(upstream string, toxics ...Toxic) (*Proxy, error) {
	if _, _, err := net.SplitHostPort(upstream); err != nil {
		return nil, fmt.Errorf("tcp proxy upstream %q: %w", upstream, err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("tcp proxy listen: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &Proxy{upstream: upstream, toxics: toxics, ln: ln, ctx: ctx, cancel: cancel, conns: map[int64]*Conn{}}
	p.wg.Add(1)
	go p.accept()
	toxic.Enter(toxics) // each now knows it is available (nemesis.Fault)
	return p, nil
}

// Addr is the host:port clients connect to instead of the receiver's.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Close stops accepting, ends what the toxics are waiting on, closes
// every connection and waits for the relays to end.
func (p *Proxy) Close() error {
	err := p.ln.Close()
	p.cancel()
	p.mu.Lock()
	for _, c := range p.conns {
		c.close()
	}
	p.mu.Unlock()
	p.wg.Wait()
	if errors.Is(err, net.ErrClosed) {
		err = nil // closed before
	} else {
		toxic.Leave(p.toxics)
	}
	return err
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		client, err := p.ln.Accept()
		if err != nil {
			return // closed
		}
		p.wg.Add(1)
		go p.serve(client)
	}
}

// serve dials the receiver for one client connection and relays both ways.
func (p *Proxy) serve(client net.Conn) {
	defer p.wg.Done()
	d := net.Dialer{Timeout: DialTimeout}
	server, err := d.DialContext(p.ctx, "tcp", p.upstream)
	if err != nil {
		// The client sees its connection close: as if the receiver refused it.
		client.Close()
		return
	}
	c := &Conn{ID: p.seq.Add(1), p: p, client: client, server: server}
	p.mu.Lock()
	if p.ctx.Err() != nil {
		p.mu.Unlock()
		c.close()
		return
	}
	p.conns[c.ID] = c
	p.mu.Unlock()
	var both sync.WaitGroup
	both.Add(2)
	go func() { defer both.Done(); p.relay(c, Up, client, server) }()
	go func() { defer both.Done(); p.relay(c, Down, server, client) }()
	both.Wait()
	c.close()
	p.mu.Lock()
	delete(p.conns, c.ID)
	p.mu.Unlock()
}

// relay copies one direction of a connection, chunk by chunk, through the
// toxics. At the end of src it half-closes dst, as the peer did; a
// swallowed connection is closed instead, since no byte of it goes on.
func (p *Proxy) relay(c *Conn, dir Direction, src, dst net.Conn) {
	buf := make([]byte, 32<<10)
	var seq int64
	for {
		n, err := src.Read(buf)
		if n > 0 {
			seq++
			ch := &Chunk{Conn: c.ID, Seq: seq, Dir: dir, Data: append([]byte(nil), buf[:n]...)}
			switch p.pipe(c, ch) {
			case Forward:
				if _, werr := dst.Write(ch.Data); werr != nil {
					c.close()
					return
				}
				if dir == Down {
					p.answers.notify(c.ID)
				}
			case Swallow:
				c.swallowed.Store(true)
			case ResetBoth:
				c.reset()
				return
			}
		}
		if err != nil {
			switch {
			case c.swallowed.Load():
				c.close()
				return
			case !errors.Is(err, io.EOF):
				c.reset() // the peer's connection broke: so does the other's
				return
			}
			if cw, ok := dst.(interface{ CloseWrite() error }); ok {
				_ = cw.CloseWrite()
			}
			return
		}
	}
}

// pipe runs a chunk through the toxics; a swallowed connection's chunks
// go nowhere.
func (p *Proxy) pipe(c *Conn, ch *Chunk) Verdict {
	if c.swallowed.Load() {
		return Swallow
	}
	for _, t := range p.toxics {
		if v := t.Pipe(p.ctx, c, ch); v != Forward {
			return v
		}
		if p.ctx.Err() != nil {
			return ResetBoth
		}
	}
	return Forward
}

// Conn is one client connection and its connection to the receiver, as
// the toxics see it.
type Conn struct {
	ID             int64
	p              *Proxy
	client, server net.Conn
	swallowed      atomic.Bool
	closeOnce      sync.Once

	mu      sync.Mutex
	onClose []func()
}

// OnClose calls fn once the connection is closed or reset, at once if it
// already is.
func (c *Conn) OnClose(fn func()) {
	c.mu.Lock()
	if c.onClose == nil && c.closed() {
		c.mu.Unlock()
		fn()
		return
	}
	c.onClose = append(c.onClose, fn)
	c.mu.Unlock()
}

// AnsweredElsewhere returns a channel closed once the receiver's bytes on
// another connection have reached their client after the call: another
// request overtook this connection's. Call stop when no longer waiting.
func (c *Conn) AnsweredElsewhere() (answered <-chan struct{}, stop func()) {
	return c.p.answers.wait(c.ID)
}

// reset ends both sides with a TCP RST: a linger of zero makes close
// discard what is unsent and reset the connection.
func (c *Conn) reset() { c.end(true) }

func (c *Conn) close() { c.end(false) }

func (c *Conn) end(reset bool) {
	c.closeOnce.Do(func() {
		for _, nc := range []net.Conn{c.client, c.server} {
			if tc, ok := nc.(*net.TCPConn); ok && reset {
				_ = tc.SetLinger(0)
			}
			_ = nc.Close()
		}
		c.mu.Lock()
		fns := c.onClose
		c.onClose = []func(){} // non-nil: closed
		c.mu.Unlock()
		for _, fn := range fns {
			fn()
		}
	})
}

// closed reports whether end ran; c.mu is held.
func (c *Conn) closed() bool { return c.onClose != nil }

// answers tells waiting toxics when a connection's answer went through.
type answers struct {
	mu      sync.Mutex
	next    int
	waiters map[int]waiter
}

type waiter struct {
	except int64
	ch     chan struct{}
}

func (a *answers) wait(except int64) (<-chan struct{}, func()) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.waiters == nil {
		a.waiters = map[int]waiter{}
	}
	a.next++
	id, ch := a.next, make(chan struct{})
	a.waiters[id] = waiter{except: except, ch: ch}
	return ch, func() {
		a.mu.Lock()
		defer a.mu.Unlock()
		delete(a.waiters, id)
	}
}

func (a *answers) notify(conn int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for id, w := range a.waiters {
		if w.except != conn {
			close(w.ch)
			delete(a.waiters, id)
		}
	}
}
