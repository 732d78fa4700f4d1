package receiver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// ServerOptions configure Serve.
type ServerOptions struct {
	// Listen is the address, e.g. 127.0.0.1:8787 (port 0 picks one).
	Listen string
	// AllowRemote permits an address that is not loopback.
	AllowRemote bool
	// Ready, if set, is called with the bound address once the server
	// accepts connections.
	Ready func(addr net.Addr)
	// ShutdownGrace bounds the graceful shutdown: how long requests in
	// progress may take to finish; 0 does not wait for them.
	ShutdownGrace time.Duration
}

// DefaultServerOptions give requests in progress 5s to finish at
// shutdown; Listen is the caller's to set.
func DefaultServerOptions() ServerOptions {
	return ServerOptions{ShutdownGrace: 5 * time.Second}
}

// Timeouts of the reference receiver's server: a slow or stalled client
// cannot hold a connection forever.
const (
	ReadHeaderTimeout = 5 * time.Second
	ReadTimeout       = 10 * time.Second
	WriteTimeout      = 10 * time.Second
	IdleTimeout       = 60 * time.Second
)

// CheckListen refuses an address that is not loopback unless allowRemote:
// a test receiver accepts any write from anyone who can reach it.
func CheckListen(addr string, allowRemote bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("listen address %q: %w", addr, err)
	}
	if allowRemote || host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("listen address %q is not loopback; pass --allow-remote to serve beyond this machine", addr)
}

// Serve serves h until ctx is done, then shuts down gracefully: it stops
// accepting, lets requests in progress finish (each has already committed
// or will commit its write before answering), and returns.
func Serve(ctx context.Context, h http.Handler, o ServerOptions) error {
	if err := CheckListen(o.Listen, o.AllowRemote); err != nil {
		return err
	}
	if o.ShutdownGrace < 0 {
		return fmt.Errorf("server options: ShutdownGrace %v is negative", o.ShutdownGrace)
	}
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", o.Listen, err)
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: ReadHeaderTimeout,
		ReadTimeout:       ReadTimeout,
		WriteTimeout:      WriteTimeout,
		IdleTimeout:       IdleTimeout,
		MaxHeaderBytes:    16 << 10,
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	if o.Ready != nil {
		o.Ready(ln.Addr())
	}
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
