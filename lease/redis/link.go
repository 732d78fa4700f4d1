package redislease

import (
	"errors"
	"fmt"
	"net"
	"sync"
)

// link relays a replica's replication connection to its primary, so that
// the replication can be held: a replica whose link is held receives
// none of the primary's writes from then on, while its own
// acknowledgements still reach the primary (which so knows the replica
// is behind, and a WAIT for it times out). It is the network partition
// that leaves an asynchronous replica behind, on loopback, where a
// frozen replica (SIGSTOP) would not do: the kernel queues the primary's
// writes in the replica's socket, and the replica applies them all once
// resumed. What was held is dropped when the link is cut, never
// delivered.
type link struct {
	ln       net.Listener
	upstream string

	mu    sync.Mutex
	held  bool
	cut   bool
	conns []net.Conn
	wg    sync.WaitGroup
}

// newLink listens on a free loopback port and relays to upstream.
func newLink(upstream string) (*link, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("replication link to %s: %w", upstream, err)
	}
	l := &link{ln: ln, upstream: upstream}
	l.wg.Add(1)
	go l.accept()
	return l, nil
}

// Addr is the address the replica replicates from.
func (l *link) Addr() string { return l.ln.Addr().String() }

func (l *link) accept() {
	defer l.wg.Done()
	for {
		down, err := l.ln.Accept()
		if err != nil {
			return
		}
		up, err := net.Dial("tcp", l.upstream)
		if err != nil {
			down.Close()
			continue
		}
		if !l.track(down, up) {
			return
		}
		l.wg.Add(2)
		go l.relay(up, down, true)
		go l.relay(down, up, false)
	}
}

// track keeps a connection pair for Cut; false when the link is cut.
func (l *link) track(conns ...net.Conn) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cut {
		for _, c := range conns {
			c.Close()
		}
		return false
	}
	l.conns = append(l.conns, conns...)
	return true
}

// relay copies src to dst; from the primary (fromPrimary), what it reads
// once the link is held is dropped.
func (l *link) relay(src, dst net.Conn, fromPrimary bool) {
	defer l.wg.Done()
	defer dst.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && !(fromPrimary && l.isHeld()) {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (l *link) isHeld() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.held
}

// Hold stops the primary's writes from reaching the replica.
func (l *link) Hold() {
	l.mu.Lock()
	l.held = true
	l.mu.Unlock()
}

// Cut closes the link and every connection through it, dropping what was
// held; the replica's attempts to reconnect are refused.
func (l *link) Cut() error {
	l.mu.Lock()
	l.cut = true
	conns := l.conns
	l.conns = nil
	l.mu.Unlock()
	err := l.ln.Close()
	if errors.Is(err, net.ErrClosed) {
		err = nil
	}
	for _, c := range conns {
		c.Close()
	}
	l.wg.Wait()
	return err
}
