package targets

import (
	"context"
	"encoding/hex"
)

// TraceContext is the W3C trace context (https://www.w3.org/TR/trace-context/)
// of one client operation: the trace id the history records on the
// operation's invocation, so that a person can find the operation's
// request in the receiver's own logs and traces, and the id of the
// operation's span, the request's parent. The workload draws one per
// operation; a target that carries traces (TraceCarrier) sends it with
// every request the operation makes.
type TraceContext struct {
	TraceID [16]byte
	SpanID  [8]byte
}

// Valid reports whether both ids are non-zero, as the trace-context
// specification requires: a receiver ignores a traceparent with an
// all-zero id.
func (tc TraceContext) Valid() bool {
	return tc.TraceID != [16]byte{} && tc.SpanID != [8]byte{}
}

// TraceIDString is the trace id as the history and the traceparent
// header write it: 32 lowercase hex digits.
func (tc TraceContext) TraceIDString() string { return hex.EncodeToString(tc.TraceID[:]) }

// Traceparent is the traceparent header of the operation's request:
// version 00, the trace id, the span id, and the flags 01 (sampled, so
// that a receiver which samples by its caller's decision records it).
func (tc TraceContext) Traceparent() string {
	return "00-" + tc.TraceIDString() + "-" + hex.EncodeToString(tc.SpanID[:]) + "-01"
}

// TraceparentHeader is the name of the W3C header that carries a trace
// context on an HTTP request.
const TraceparentHeader = "Traceparent"

type traceKey struct{}

// WithTrace returns ctx carrying tc, for the target to send with the
// operation's requests.
func WithTrace(ctx context.Context, tc TraceContext) context.Context {
	return context.WithValue(ctx, traceKey{}, tc)
}

// TraceFrom returns the trace context ctx carries, if it carries a valid
// one: the requests fencecheck makes outside a client's operation (a
// target's set-up probe, verify's scenarios) carry none.
func TraceFrom(ctx context.Context) (TraceContext, bool) {
	tc, ok := ctx.Value(traceKey{}).(TraceContext)
	return tc, ok && tc.Valid()
}

// TraceCarrier is implemented by targets that send an operation's trace
// context (TraceFrom) to the receiver: HTTP targets as a traceparent
// header, SQL targets as a comment in each statement. CarriesTrace says
// whether this one does as configured (an HTTP target whose user sets a
// traceparent header of their own does not). The workload draws trace
// ids, and the history records them, only for targets that carry them:
// an id the receiver never saw would send a person looking for a request
// that cannot be found. Memory and Redis targets carry none.
type TraceCarrier interface {
	CarriesTrace() bool
}

// CarriesTrace reports whether t sends its operations' trace contexts.
func CarriesTrace(t Target) bool {
	c, ok := t.(TraceCarrier)
	return ok && c.CarriesTrace()
}
