package receiver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/fencecheck/fencecheck/internal/httpserver"
)

// ServerOptions configure Serve. DefaultServerOptions gives the defaults;
// a zero field means zero.
type ServerOptions struct {
	// Listen is the address, e.g. 127.0.0.1:8787 (port 0 picks one).
	Listen string
	// AllowRemote permits an address that is not loopback, and answers
	// requests for any Host: remote clients name the machine as they
	// know it.
	AllowRemote bool
	// Hosts are names answered besides the loopback ones (localhost,
	// names under .localhost, 127.0.0.0/8, ::1) and Listen's host; any
	// other Host gets 421, so a web page cannot reach the receiver by
	// DNS rebinding.
	Hosts []string
	// HostHint, if set, ends the answer to a refused Host: what the
	// operator can do to have it answered.
	HostHint func(host string) string
	// Timeouts bound each phase of a connection, so a slow or stalled
	// client cannot hold one forever; every one must be positive.
	Timeouts httpserver.Timeouts
	// Ready, if set, is called with the bound address once the server
	// accepts connections, and before it serves any: what it prints
	// comes before the request log's lines (LogRequests) in a log that
	// holds both.
	Ready func(addr net.Addr)
	// ShutdownGrace bounds the graceful shutdown: how long requests in
	// progress may take to finish; 0 does not wait for them.
	ShutdownGrace time.Duration
	_             struct{} // keyed fields only: the struct may grow
}

// DefaultServerOptions give requests in progress 5s to finish at
// shutdown, and a connection 5s to send its header, 10s to send the
// whole request, 10s from the header to the end of the answer and 60s idle
// between requests (above the HTTP target's 30s, so the client closes an
// idle connection before the server does). Listen is the caller's to set.
func DefaultServerOptions() ServerOptions {
	return ServerOptions{
		ShutdownGrace: 5 * time.Second,
		Timeouts: httpserver.Timeouts{
			ReadHeader: 5 * time.Second,
			Read:       10 * time.Second,
			Write:      10 * time.Second,
			Idle:       60 * time.Second,
		},
	}
}

// maxHeaderBytes bounds a request's header: the protocol's are a few
// short lines.
const maxHeaderBytes = 16 << 10

// CheckListen refuses an address that is not loopback unless allowRemote:
// a test receiver accepts any write from anyone who can reach it.
func CheckListen(addr string, allowRemote bool) error {
	return httpserver.CheckLoopback(addr, allowRemote)
}

// newServer is the http.Server of Serve, not yet listening.
func newServer(h http.Handler, o ServerOptions) (*http.Server, error) {
	if err := CheckListen(o.Listen, o.AllowRemote); err != nil {
		return nil, err
	}
	if o.ShutdownGrace < 0 {
		return nil, fmt.Errorf("server options: ShutdownGrace %v is negative", o.ShutdownGrace)
	}
	return httpserver.New(h, httpserver.Options{
		Timeouts:       o.Timeouts,
		MaxHeaderBytes: maxHeaderBytes,
		Hosts:          httpserver.HostPolicy{AnyHost: o.AllowRemote, Names: o.Hosts, Listen: o.Listen, Hint: o.HostHint},
	})
}

// Serve serves h until ctx is done, then shuts down gracefully: it stops
// accepting, lets requests in progress finish (each has already committed
// or will commit its write before answering), and returns.
func Serve(ctx context.Context, h http.Handler, o ServerOptions) error {
	srv, err := newServer(h, o)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", o.Listen, err)
	}
	if o.Ready != nil {
		// The socket already accepts: a client that connects now
		// waits in the backlog until Serve takes it.
		o.Ready(ln.Addr())
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return fmt.Errorf("serve %s: %w", o.Listen, err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), o.ShutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("shut down %s: %w", o.Listen, err)
	}
	return nil
}
