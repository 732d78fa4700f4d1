package runmetrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/fencecheck/fencecheck/internal/httpserver"
)

// ServerOptions configure Start. DefaultServerOptions gives the defaults;
// a zero field means zero.
type ServerOptions struct {
	// Listen is the address, e.g. 127.0.0.1:9787 (port 0 picks one).
	Listen string
	// AllowRemote permits an address that is not loopback and answers
	// requests for any Host, as a Prometheus on another machine sends
	// them; without it, the server answers loopback names and Listen's
	// host only, as the reference receiver does (httpserver.HostPolicy
	// says why).
	AllowRemote bool
	// Timeouts bound each phase of a connection; every one must be
	// positive.
	Timeouts httpserver.Timeouts
	// ShutdownGrace bounds how long Close lets a scrape in progress
	// finish.
	ShutdownGrace time.Duration
}

// DefaultServerOptions give a scraper 5s for its request, 10s for the
// answer, 60s idle between scrapes (Prometheus's default interval is
// 15s, its timeout 10s), and a scrape in progress 2s to finish at Close.
// Listen is the caller's to set.
func DefaultServerOptions() ServerOptions {
	return ServerOptions{
		ShutdownGrace: 2 * time.Second,
		Timeouts: httpserver.Timeouts{
			ReadHeader: 5 * time.Second,
			Read:       5 * time.Second,
			Write:      10 * time.Second,
			Idle:       60 * time.Second,
		},
	}
}

// Server serves a run's metrics at /metrics until Close.
type Server struct {
	srv    *http.Server
	ln     net.Listener
	grace  time.Duration
	served chan error
}

// maxHeaderBytes bounds a scrape's request header: a few short lines.
const maxHeaderBytes = 16 << 10

// Start listens on o.Listen and serves m at /metrics (anything else is
// 404) until Close. It refuses an address that is not loopback unless
// o.AllowRemote: the counters say what a receiver under test does, and
// there is no authentication.
func Start(m *Metrics, o ServerOptions) (*Server, error) {
	if err := httpserver.CheckLoopback(o.Listen, o.AllowRemote); err != nil {
		return nil, err
	}
	if o.ShutdownGrace < 0 {
		return nil, fmt.Errorf("metrics server options: ShutdownGrace %v is negative", o.ShutdownGrace)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Handler())
	srv, err := httpserver.New(mux, httpserver.Options{Timeouts: o.Timeouts, MaxHeaderBytes: maxHeaderBytes,
		Hosts: httpserver.HostPolicy{AnyHost: o.AllowRemote, Listen: o.Listen}})
	if err != nil {
		return nil, fmt.Errorf("metrics server: %w", err)
	}
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return nil, fmt.Errorf("metrics server: listen on %s: %w", o.Listen, err)
	}
	s := &Server{srv: srv, ln: ln, grace: o.ShutdownGrace, served: make(chan error, 1)}
	go func() { s.served <- srv.Serve(ln) }()
	return s, nil
}

// Addr is the address the server listens on (with the port port 0 drew).
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Close stops accepting scrapes, lets one in progress finish within the
// grace, and returns why serving stopped early, if it did.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), s.grace)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if serr := <-s.served; !errors.Is(serr, http.ErrServerClosed) {
		return fmt.Errorf("metrics server %s: %w", s.Addr(), serr)
	}
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("metrics server %s: shut down: %w", s.Addr(), err)
	}
	return nil
}
