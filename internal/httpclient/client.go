// Package httpclient builds the HTTP client that fencecheck uses to talk to
// receivers, shared by the HTTP target and the fault proxy, which sit on
// the two ends of the same connections.
package httpclient

import (
	"net"
	"net/http"
	"time"
)

// New returns a client whose connection pool fits the workers: each
// worker reuses a kept-alive connection instead of dialing per request,
// and requests held by a fault (which keep their connection busy) do not
// starve the others, since connections per host are not capped. Proxies
// from the environment are ignored: fencecheck talks to the receiver
// directly. Its idle timeout stays below the reference receiver's (60s),
// so the client never reuses a connection the server is closing.
func New(workers int, timeout time.Duration) *http.Client {
	idle := 2*workers + 4
	return &http.Client{
		Transport: &http.Transport{
			Proxy:               nil,
			DialContext:         (&net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}).DialContext,
			MaxIdleConns:        idle,
			MaxIdleConnsPerHost: idle,
			IdleConnTimeout:     30 * time.Second,
			DisableCompression:  true,
		},
		CheckRedirect: noRedirect,
	}
}

// WithTransport returns a client that sends its requests through rt (an
// in-process handler's), answering redirects as New's does.
func WithTransport(rt http.RoundTripper) *http.Client {
	return &http.Client{Transport: rt, CheckRedirect: noRedirect}
}

// noRedirect: a redirect is not part of the protocol: its status is the
// answer (an unknown outcome), not something to follow.
func noRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
