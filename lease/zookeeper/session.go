package zklease

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
)

// session is a ZooKeeper session with a connection fencecheck can cut
// for good: a lease's holder that stops answering, as a holder paused
// past its session timeout does. go-zookeeper keeps a session alive on
// its own (it pings every third of the timeout, and reconnects when the
// connection drops); a cut session's dials are refused, so the server
// hears nothing more from it and expires it, with its ephemeral nodes.
type session struct {
	conn *zk.Conn

	mu      sync.Mutex
	cut     bool
	open    []net.Conn
	timeout time.Duration // as the server negotiated it; 0 until known
}

// errCut is what a cut session's dials fail with.
var errCut = errors.New("the lease's holder stopped keeping its session alive")

// dial implements zk.Dialer. Its connections read an answer that grants
// the session no timeout as the expiry it is (expiryGuard).
func (s *session) dial(network, addr string, timeout time.Duration) (net.Conn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cut {
		return nil, errCut
	}
	c, err := net.DialTimeout(network, addr, timeout)
	if err != nil {
		return nil, err
	}
	s.open = append(s.open, c)
	return &expiryGuard{Conn: c}, nil
}

// Printf implements zk.Logger: it keeps the session timeout the server
// negotiated (go-zookeeper logs it and exports it nowhere else) and
// drops the rest, which is the client's reconnecting chatter.
func (s *session) Printf(format string, args ...any) {
	if format != "authenticated: id=%d, timeout=%d" || len(args) != 2 {
		return
	}
	if ms, ok := args[1].(int32); ok {
		s.mu.Lock()
		s.timeout = time.Duration(ms) * time.Millisecond
		s.mu.Unlock()
	}
}

// Timeout is the session timeout the server granted; asked is returned
// when it is not known.
func (s *session) Timeout(asked time.Duration) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.timeout == 0 {
		return asked
	}
	return s.timeout
}

// Cut closes the session's connection and refuses every later dial: the
// server expires the session once its timeout passes.
func (s *session) Cut() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cut = true
	for _, c := range s.open {
		_ = c.Close()
	}
	s.open = nil
}

// Close ends the session (the server deletes its ephemeral nodes at
// once) when it is still connected, and stops the client.
func (s *session) Close() { s.conn.Close() }

// openSession connects to servers and waits, until ctx is done, for the
// server to grant a session of timeout (which it may round into its
// bounds).
func openSession(ctx context.Context, servers []string, timeout time.Duration) (*session, error) {
	s := &session{}
	conn, events, err := zk.Connect(servers, timeout, zk.WithDialer(s.dial), zk.WithLogger(s))
	if err != nil {
		return nil, err
	}
	s.conn = conn
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				return nil, zk.ErrClosing
			}
			if ev.State == zk.StateHasSession {
				return s, nil
			}
		case <-ctx.Done():
			conn.Close()
			return nil, fmt.Errorf("no session granted: %w", ctx.Err())
		}
	}
}
