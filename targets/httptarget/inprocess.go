package httptarget

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"sync"
)

// HandlerTransport returns an http.RoundTripper that serves each request
// with h in the same process, without a socket: Options.Transport, so
// that a Target tests an http.Handler through exactly the requests,
// adapter and outcome rules it sends a receiver over the network
// (fencetest.Handler does).
//
// h gets a request as net/http's server gives one: a URL of path and
// query only, RequestURI, Host, a RemoteAddr, and the client's body
// (http.NoBody when there is none), with the client request's context,
// which ends when the client stops waiting. RoundTrip returns when h has
// returned, or with the context's error when the context ends first (the
// handler runs on, as a server's does after its client left); a handler
// that panics is an error, as the lost connection it causes is. The
// answer is kept in memory, at most maxResponse+1 bytes of body (the
// target reads no more), so headers are sent with the body and a handler
// that streams is read once it is done. What is not covered: Hijack,
// trailers, 1xx answers (they are dropped) and HTTP/2.
func HandlerTransport(h http.Handler) http.RoundTripper { return handlerTransport{h} }

type handlerTransport struct{ h http.Handler }

// inProcessAddr is the client address handlers see: TEST-NET-1, as
// net/http/httptest gives.
const inProcessAddr = "192.0.2.1:1234"

func (t handlerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	if err := ctx.Err(); err != nil {
		closeBody(req)
		return nil, err
	}
	sreq := serverRequest(req)
	w := &answerWriter{header: make(http.Header), limit: maxResponse + 1}
	done := make(chan any, 1)
	go func() {
		defer closeBody(req)
		defer func() { done <- recover() }()
		t.h.ServeHTTP(w, sreq)
	}()
	select {
	case p := <-done:
		if p != nil {
			if err, ok := p.(error); ok && errors.Is(err, http.ErrAbortHandler) {
				return nil, fmt.Errorf("handler aborted the answer: %w", err)
			}
			return nil, fmt.Errorf("handler panicked: %v", p)
		}
		return w.response(req), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// serverRequest is req as the server side sees it.
func serverRequest(req *http.Request) *http.Request {
	s := req.Clone(req.Context())
	s.URL = &url.URL{Path: req.URL.Path, RawPath: req.URL.RawPath, RawQuery: req.URL.RawQuery}
	s.RequestURI = req.URL.RequestURI()
	s.Host = req.Host
	if s.Host == "" {
		s.Host = req.URL.Host
	}
	s.RemoteAddr = inProcessAddr
	s.Proto, s.ProtoMajor, s.ProtoMinor = "HTTP/1.1", 1, 1
	s.Header.Del("Host")
	if s.Body == nil {
		s.Body = http.NoBody
	}
	s.GetBody = nil
	return s
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		_ = req.Body.Close()
	}
}

// answerWriter is the http.ResponseWriter of one in-process request.
type answerWriter struct {
	mu     sync.Mutex
	header http.Header
	// sent is the header as it was when the answer's status was set:
	// later changes are not sent, as on a connection.
	sent   http.Header
	status int
	body   bytes.Buffer
	limit  int
}

func (w *answerWriter) Header() http.Header { return w.header }

func (w *answerWriter) WriteHeader(code int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writeHeaderLocked(code)
}

func (w *answerWriter) writeHeaderLocked(code int) {
	if w.status != 0 || (code >= 100 && code < 200 && code != http.StatusSwitchingProtocols) {
		return
	}
	w.status, w.sent = code, w.header.Clone()
}

// errAnswerTooLarge stops a handler that writes more than the target
// reads.
var errAnswerTooLarge = errors.New("answer larger than the target reads")

func (w *answerWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.status == 0 {
		if _, set := w.header["Content-Type"]; !set && len(p) > 0 {
			w.header.Set("Content-Type", http.DetectContentType(p))
		}
		w.writeHeaderLocked(http.StatusOK)
	}
	if !bodyAllowed(w.status) {
		return 0, http.ErrBodyNotAllowed
	}
	if room := w.limit - w.body.Len(); len(p) > room {
		w.body.Write(p[:room])
		return room, errAnswerTooLarge
	}
	return w.body.Write(p)
}

// bodyAllowed says whether an answer with status may have a body.
func bodyAllowed(status int) bool {
	return status != http.StatusNoContent && status != http.StatusNotModified
}

// Flush implements http.Flusher; the answer is sent when the handler
// returns.
func (w *answerWriter) Flush() {}

func (w *answerWriter) response(req *http.Request) *http.Response {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writeHeaderLocked(http.StatusOK)
	body := bytes.Clone(w.body.Bytes())
	if req.Method == http.MethodHead {
		body = nil
	}
	h := w.sent
	if h.Get("Content-Length") == "" && req.Method != http.MethodHead {
		h.Set("Content-Length", strconv.Itoa(len(body)))
	}
	return &http.Response{
		Status: fmt.Sprintf("%d %s", w.status, http.StatusText(w.status)), StatusCode: w.status,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Header: h,
		Body: io.NopCloser(bytes.NewReader(body)), ContentLength: int64(len(body)), Request: req,
	}
}
