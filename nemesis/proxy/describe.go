package proxy

import (
	"net/http"
	"strconv"
)

// Headers with which a client describes each request to the proxy, which
// removes them before forwarding. The proxy cannot tell a write from a
// read, or find its token, in a receiver's own API (an adapter may put
// them anywhere), so the client that built the request says so.
const (
	HeaderOp       = "Fencecheck-Op" // OpWrite or OpRead
	HeaderResource = "Fencecheck-Resource"
	HeaderToken    = "Fencecheck-Token"
)

// The operations a request can describe.
const (
	OpWrite = "write"
	OpRead  = "read"
)

// Describe sets the headers that tell the proxy what a request is: op
// (OpWrite or OpRead), its resource and, for a write, its token. Clients
// call it on every request they send through the proxy; a request
// without them passes the toxics as one they cannot target.
func Describe(h http.Header, op, resource string, token uint64) {
	h.Set(HeaderOp, op)
	h.Set(HeaderResource, resource)
	if op == OpWrite {
		h.Set(HeaderToken, strconv.FormatUint(token, 10))
	}
}
