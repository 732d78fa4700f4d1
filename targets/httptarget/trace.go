package httptarget

import (
	"context"
	"maps"
	"net/http"
	"slices"

	"github.com/fencecheck/fencecheck/targets"
)

// CarriesTrace implements targets.TraceCarrier: every request of an
// operation, write or read, carries the operation's W3C traceparent
// header (version 00, sampled), which a receiver that logs or traces its
// requests records, so that the operation a report names can be found
// among them. It is false when the user's headers (Options.Header) or the
// adapter's set a traceparent of their own: theirs is sent, and the
// history records no trace ids.
func (t *Target) CarriesTrace() bool { return t.trace }

// setsTraceparent reports whether the user's headers or an adapter's
// header templates hold a traceparent.
func setsTraceparent(h http.Header, a compiled) bool {
	return slices.ContainsFunc(slices.Concat(slices.Collect(maps.Keys(h)), slices.Collect(maps.Keys(a.Write.Headers)),
		slices.Collect(maps.Keys(a.Read.Headers))), func(name string) bool {
		return http.CanonicalHeaderKey(name) == targets.TraceparentHeader
	})
}

// traceID is the trace id of the operation ctx belongs to, for the
// {trace_id} placeholder of the adapter's query and header templates
// (a receiver that logs an X-Request-Id but not traceparent); empty
// outside an operation.
func traceID(ctx context.Context) string {
	if tc, ok := targets.TraceFrom(ctx); ok {
		return tc.TraceIDString()
	}
	return ""
}
