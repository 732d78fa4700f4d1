package tcpproxy

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/nemesis/internal/fakeenv"
	"github.com/fencecheck/fencecheck/sched"
)

// env is the run as the toxics see it, on the machine's clock (a TCP
// proxy relays real sockets, which a simulated clock cannot wait on),
// with each recorded event also sent to a channel the test waits on.
type env struct {
	*fakeenv.Env
	rt     sched.Runtime
	events chan *histories.Event
}

func newEnv() *env {
	return &env{Env: fakeenv.New(), rt: sched.NewReal(), events: make(chan *histories.Event, 64)}
}

func (e *env) Runtime() sched.Runtime { return e.rt }

func (e *env) Record(ev *histories.Event) {
	e.Env.Record(ev)
	e.events <- ev
}

// hang bounds a wait for an event that should come, so that a broken
// toxic fails the test instead of hanging it; it is no timing assertion.
const hang = 30 * time.Second

// next waits for the next recorded event, which must be f.
func (e *env) next(t *testing.T, f string) *histories.Event {
	t.Helper()
	select {
	case ev := <-e.events:
		require.Equal(t, f, ev.F, "event %q", ev.Detail)
		return ev
	case <-time.After(hang):
		t.Fatalf("no %s event", f)
		return nil
	}
}

// stepClock is the machine's runtime whose Sleep waits for the test:
// each sleep is announced on sleeps and ends when the test sends on wake.
type stepClock struct {
	*sched.Real
	sleeps chan time.Duration
	wake   chan struct{}
}

func newStepClock() *stepClock {
	return &stepClock{Real: sched.NewReal(), sleeps: make(chan time.Duration), wake: make(chan struct{})}
}

func (c *stepClock) Sleep(ctx context.Context, d time.Duration) error {
	select {
	case c.sleeps <- d:
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-c.wake:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// echo is a TCP server that answers every chunk with the same bytes and
// keeps, in order across its connections, what it received.
type echo struct {
	ln   net.Listener
	mu   sync.Mutex
	got  []string
	seen chan string       // each chunk received
	done chan connReceived // each connection's end
}

// connReceived is what one connection brought before it ended.
type connReceived struct {
	bytes int
	err   error
}

func newEcho(t *testing.T) *echo {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	e := &echo{ln: ln, seen: make(chan string, 64), done: make(chan connReceived, 16)}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go e.serve(c)
		}
	}()
	return e
}

func (e *echo) serve(c net.Conn) {
	defer c.Close()
	buf := make([]byte, 4096)
	total := 0
	for {
		n, err := c.Read(buf)
		if n > 0 {
			total += n
			e.mu.Lock()
			e.got = append(e.got, string(buf[:n]))
			e.mu.Unlock()
			e.seen <- string(buf[:n])
			if _, werr := c.Write(buf[:n]); werr != nil {
				err = werr
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			e.done <- connReceived{bytes: total, err: err}
			return
		}
	}
}

func (e *echo) received() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.got...)
}

// start starts a proxy to the echo server and closes it at the end.
func start(t *testing.T, e *echo, toxics ...Toxic) *Proxy {
	t.Helper()
	p, err := Start(e.ln.Addr().String(), toxics...)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, p.Close()) })
	return p
}

// dial connects to the proxy.
func dial(t *testing.T, p *Proxy) *net.TCPConn {
	t.Helper()
	c, err := net.Dial("tcp", p.Addr())
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	require.NoError(t, c.SetDeadline(time.Now().Add(hang)))
	return c.(*net.TCPConn)
}

// roundTrip writes msg and reads the echo.
func roundTrip(t *testing.T, c net.Conn, msg string) {
	t.Helper()
	_, err := c.Write([]byte(msg))
	require.NoError(t, err)
	readBack(t, c, msg)
}

func readBack(t *testing.T, c net.Conn, msg string) {
	t.Helper()
	got := make([]byte, len(msg))
	_, err := io.ReadFull(c, got)
	require.NoError(t, err)
	require.Equal(t, msg, string(got))
}

// only selects the client's chunks that carry msg.
func only(msg string) Selector { return Carrying([]byte(msg)) }
