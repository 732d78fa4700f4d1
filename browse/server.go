package browse

import (
	"time"

	"github.com/fencecheck/fencecheck/internal/httpserver"
)

// DefaultServerOptions are the limits of the server in front of a Server
// (`fencecheck serve`): 10s to send a request's header and 10s for the
// whole request (the view answers GET and HEAD, which have no body), 60s
// from the header to the end of the answer (a history of many megabytes
// over a slow link), and 60s idle between requests. The Host policy
// answers the loopback names only; the caller adds its listen address and
// any other names.
func DefaultServerOptions() httpserver.Options {
	return httpserver.Options{
		Timeouts: httpserver.Timeouts{
			ReadHeader: 10 * time.Second,
			Read:       10 * time.Second,
			Write:      60 * time.Second,
			Idle:       60 * time.Second,
		},
		MaxHeaderBytes: 64 << 10,
	}
}
