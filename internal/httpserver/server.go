// Package httpserver builds the http.Server of fencecheck's two servers,
// `fencecheck serve` (the run store's web view) and the reference
// receiver: every timeout set, so a slow or stalled client cannot hold a
// connection forever, and a Host allow-list, so a web page cannot reach
// them by DNS rebinding. It adds no TLS and no authentication: anyone who
// can connect and names an allowed host is answered.
package httpserver

import (
	"fmt"
	"net/http"
	"time"
)

// Timeouts bound each phase of a connection (see http.Server): every one
// must be positive.
type Timeouts struct {
	// ReadHeader bounds reading a request's header.
	ReadHeader time.Duration
	// Read bounds reading a whole request, body included.
	Read time.Duration
	// Write bounds the time from the end of the request's header to the
	// end of the answer.
	Write time.Duration
	// Idle bounds how long a kept-alive connection waits for its next
	// request.
	Idle time.Duration
}

// Options configure New.
type Options struct {
	Timeouts Timeouts
	// MaxHeaderBytes bounds a request's header; it must be positive.
	MaxHeaderBytes int
	Hosts          HostPolicy
	_              struct{}
}

// New returns a server for h with o's timeouts, answering only the hosts
// o.Hosts allows.
func New(h http.Handler, o Options) (*http.Server, error) {
	t := o.Timeouts
	for _, d := range []struct {
		name string
		d    time.Duration
	}{{"ReadHeader", t.ReadHeader}, {"Read", t.Read}, {"Write", t.Write}, {"Idle", t.Idle}} {
		if d.d <= 0 {
			return nil, fmt.Errorf("server options: %s timeout must be positive, not %v", d.name, d.d)
		}
	}
	if o.MaxHeaderBytes <= 0 {
		return nil, fmt.Errorf("server options: MaxHeaderBytes must be positive, not %d", o.MaxHeaderBytes)
	}
	guarded, err := AllowHosts(h, o.Hosts)
	if err != nil {
		return nil, fmt.Errorf("server options: %w", err)
	}
	return &http.Server{
		Handler:           guarded,
		ReadHeaderTimeout: t.ReadHeader,
		ReadTimeout:       t.Read,
		WriteTimeout:      t.Write,
		IdleTimeout:       t.Idle,
		MaxHeaderBytes:    o.MaxHeaderBytes,
	}, nil
}
