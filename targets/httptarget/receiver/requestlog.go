package receiver

import (
	"errors"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"time"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// LogRequests wraps next so that every request it answers is logged to w
// as one line, in logfmt (log/slog's text format), after its answer:
//
//	time=2026-12-04T18:06:00.123456789Z msg=request method=PUT resource=k3x9q2-r0 token=41 status=409 trace_id=4bf92f3577b34da6a3ce929d0e0e4736
//
// time is when the answer was complete (UTC); resource is the path's
// resource, or path the whole path of any other request; token the
// request's Fencing-Token header, when it has one; status the answer's
// status; trace_id the trace id of the request's W3C traceparent header,
// when it has a valid one (fencecheck sends one with every request of an
// operation, and records its trace id in the history, so that the
// operation a report names can be found here). Values are quoted when
// they need to be, so a request cannot forge a line.
//
// Not logged: a request the server refused before the handler (a bad
// Host, a header too large) and one whose handler panicked.
func LogRequests(next http.Handler, w io.Writer) http.Handler {
	log := slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{ReplaceAttr: requestLogAttr}))
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		sw := &statusWriter{ResponseWriter: rw}
		next.ServeHTTP(sw, r)
		attrs := []slog.Attr{slog.String("method", r.Method)}
		if resource, ok := strings.CutPrefix(r.URL.Path, "/resources/"); ok {
			attrs = append(attrs, slog.String("resource", resource))
		} else {
			attrs = append(attrs, slog.String("path", r.URL.Path))
		}
		if tok := r.Header.Values(TokenHeader); len(tok) > 0 {
			attrs = append(attrs, slog.String("token", strings.Join(tok, ",")))
		}
		attrs = append(attrs, slog.Int("status", sw.code()))
		if id, ok := traceID(r); ok {
			attrs = append(attrs, slog.String("trace_id", id))
		}
		log.LogAttrs(r.Context(), slog.LevelInfo, "request", attrs...)
	})
}

// requestLogAttr writes the time in UTC to the nanosecond, as a
// receiver's other logs can be matched against, and leaves out the
// level: every line is a request.
func requestLogAttr(groups []string, a slog.Attr) slog.Attr {
	switch {
	case len(groups) > 0:
	case a.Key == slog.TimeKey:
		return slog.String(slog.TimeKey, a.Value.Time().UTC().Format(time.RFC3339Nano))
	case a.Key == slog.LevelKey:
		return slog.Attr{}
	}
	return a
}

// traceID is the trace id of r's traceparent header, if it is valid by
// the W3C trace-context specification, as OpenTelemetry reads it.
func traceID(r *http.Request) (string, bool) {
	ctx := propagation.TraceContext{}.Extract(r.Context(), propagation.HeaderCarrier(r.Header))
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsValid() {
		return "", false
	}
	return sc.TraceID().String(), true
}

// statusWriter remembers the status of the answer it writes.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 && code >= http.StatusOK {
		w.status = code // not an informational answer before it
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// code is the answer's status: 200 when the handler wrote nothing.
func (w *statusWriter) code() int {
	if w.status == 0 {
		return http.StatusOK
	}
	return w.status
}

// ErrRequestLogName is OpenRequestLog's error for an empty destination.
var ErrRequestLogName = errors.New("want stderr, off or a file")

// OpenRequestLog wraps h in the request log to names (LogRequests):
// "stderr" (the given stderr), "off" (none), or a file, opened for
// appending; closeLog closes the file.
func OpenRequestLog(h http.Handler, to string, stderr io.Writer) (_ http.Handler, closeLog func(), err error) {
	switch to {
	case "off":
		return h, func() {}, nil
	case "stderr":
		return LogRequests(h, stderr), func() {}, nil
	case "":
		return nil, nil, ErrRequestLogName
	}
	f, err := os.OpenFile(to, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, nil, err
	}
	return LogRequests(h, f), func() { _ = f.Close() }, nil
}
