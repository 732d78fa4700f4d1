// Package httptarget tests receivers behind HTTP. Its Target speaks the
// default protocol of docs/http-protocol.md, or another API through an
// Adapter, and maps every answer strictly:
//
//	worker ──Write──> Target ──PUT {base}/resources/{id}──> receiver
//	                     2xx: Accepted · 409/412: Rejected · anything else, timeout, lost connection: error (unknown)
//
// An adapter's outcome rules replace the status mapping; an answer that
// no rule matches is unknown too, never a default verdict.
//
// The package lives in targets/http; it is named httptarget so that it
// does not shadow net/http. The reference receiver is in targets/httptarget/receiver.
package httptarget

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/internal/httpclient"
	"github.com/fencecheck/fencecheck/internal/redact"
	"github.com/fencecheck/fencecheck/targets"
)

// maxResponse bounds what is read of an answer.
const maxResponse = 4 << 20

// Options tune a Target. DefaultOptions gives the defaults; a zero field
// means zero.
type Options struct {
	// Adapter maps the receiver's API; the zero Adapter is the default
	// protocol.
	Adapter Adapter
	// Workers sizes the connection pool; at least 1.
	Workers int
	// Timeout bounds each request, from dialing to the end of the
	// answer; 0 means no bound. A request that runs out of time is an
	// unknown outcome.
	Timeout time.Duration
	// Describe, when set, is called on every request with what it is:
	// op "write" or "read", its resource and, for a write, its token. The
	// fault proxy needs this (proxy.Describe), since the receiver's own
	// API may hide it anywhere; the target does not know about the proxy.
	Describe func(h http.Header, op, resource string, token uint64)
	// Transport, when set, carries the requests instead of connections
	// to the base URL's host: HandlerTransport serves them with an
	// http.Handler in the process. Workers then sizes nothing.
	Transport http.RoundTripper
	// Header is sent with every request, set before the adapter's
	// headers (its token header, Content-Type) and Describe's, which win
	// on a clash: credentials such as Authorization or X-Api-Key. Its credential-like values are
	// scrubbed from the target's errors (internal/redact).
	//
	// A Traceparent here (or in the adapter's headers) is sent as it
	// is, in place of the one the target sends for each operation (see
	// CarriesTrace): the user's header wins, and the history then records
	// no trace ids, since none would name one request.
	Header http.Header
	_      struct{} // keyed fields only: the struct may grow
}

// Target is a receiver behind HTTP.
type Target struct {
	base    *url.URL // without its query, which query holds
	query   string   // the base URL's query, sent with every request
	name    string   // the base URL as it may be printed
	secrets []string // what the target's errors must not contain
	adapter compiled
	client  *http.Client
	timeout time.Duration
	desc    func(h http.Header, op, resource string, token uint64)
	header  http.Header
	trace   bool // send each operation's traceparent (CarriesTrace)
}

// DefaultOptions size the pool for the harness's 8 workers and give each
// request 2s, long past any answer a healthy receiver gives on loopback,
// and short enough that a hung one costs a run little.
func DefaultOptions() Options {
	return Options{Workers: 8, Timeout: 2 * time.Second}
}

// validate says which field is out of range.
func (o Options) validate() error {
	switch {
	case o.Workers < 1:
		return fmt.Errorf("options: Workers must be at least 1, not %d", o.Workers)
	case o.Timeout < 0:
		return fmt.Errorf("options: Timeout %v is negative", o.Timeout)
	}
	for name, values := range o.Header {
		for _, v := range values {
			if err := CheckHeader(name, v); err != nil {
				return fmt.Errorf("options: Header: %w", err)
			}
		}
	}
	return nil
}

// New returns a target for the receiver at base (http:// or https://). A
// query in base (?api_key=…) is sent with every request; user information
// (http://user:password@…) as Basic authentication. Errors, here and from
// every request, name base with its credentials masked.
func New(base string, o Options) (*Target, error) {
	name := redact.Spec(base)
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("http target %q: want http://HOST:PORT[/PREFIX][?QUERY]", name)
	}
	if u.Fragment != "" {
		return nil, fmt.Errorf("http target %q: no fragment in the base URL", name)
	}
	adapter, err := o.Adapter.compile()
	if err != nil {
		return nil, fmt.Errorf("http target %q: adapter: %w", name, err)
	}
	if err := o.validate(); err != nil {
		return nil, fmt.Errorf("http target %q: %w", name, err)
	}
	query := u.RawQuery
	u.Path, u.RawQuery, u.ForceQuery = strings.TrimSuffix(u.Path, "/"), "", false
	return &Target{base: u, query: query, name: name, secrets: redact.Secrets(base, o.Header),
		adapter: adapter, client: newClient(o),
		timeout: o.Timeout, desc: o.Describe, header: o.Header.Clone(),
		trace: !setsTraceparent(o.Header, adapter)}, nil
}

// newClient is the client of a target with o: over the network, unless o
// gives a transport.
func newClient(o Options) *http.Client {
	if o.Transport != nil {
		return httpclient.WithTransport(o.Transport)
	}
	return httpclient.New(o.Workers, o.Timeout)
}

// Base returns the receiver's base URL, with its credentials masked.
func (t *Target) Base() string { return t.name }

// Setup checks that the receiver answers at all: any HTTP status will do.
func (t *Target) Setup(ctx context.Context) error {
	if _, err := t.do(ctx, t.readRequest, op{resource: "fencecheck-probe"}); err != nil {
		msg := strings.TrimPrefix(err.Error(), targets.ErrDefinitelyNotApplied.Error()+": ")
		return fmt.Errorf("receiver %s does not answer: %s", t.name, redact.Scrub(msg, t.secrets))
	}
	return nil
}

// Teardown closes the idle connections.
func (t *Target) Teardown(context.Context) error {
	t.client.CloseIdleConnections()
	return nil
}

// Write sends a write and maps the answer strictly.
func (t *Target) Write(ctx context.Context, resource string, token uint64, value string) (histories.Outcome, error) {
	out, err := t.write(ctx, resource, token, value)
	return out, t.scrub(err)
}

// Read reads a resource.
func (t *Target) Read(ctx context.Context, resource string) (targets.Reading, error) {
	r, err := t.read(ctx, resource)
	return r, t.scrub(err)
}

// scrub removes the target's credentials from an error: the HTTP client
// quotes the request's URL, with the base URL's query, and a receiver may
// echo the request in its answer, which an error quotes.
func (t *Target) scrub(err error) error { return redact.Error(err, t.secrets) }

func (t *Target) write(ctx context.Context, resource string, token uint64, value string) (histories.Outcome, error) {
	return t.send(ctx, op{resource: resource, token: token, value: value}, fmt.Sprintf("write token %d to %s", token, resource))
}

// send sends a write and maps its answer; what names it in errors.
func (t *Target) send(ctx context.Context, o op, what string) (histories.Outcome, error) {
	resp, err := t.do(ctx, t.writeRequest, o)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", what, err)
	}
	out, err := t.adapter.outcome(resp)
	if err != nil {
		return 0, fmt.Errorf("%s: unknown outcome: %w", what, err)
	}
	return out, nil
}

func (t *Target) read(ctx context.Context, resource string) (targets.Reading, error) {
	resp, err := t.do(ctx, t.readRequest, op{resource: resource})
	if err != nil {
		return targets.Reading{}, fmt.Errorf("read %s: %w", resource, err)
	}
	r, err := t.adapter.reading(resp)
	if err != nil {
		return targets.Reading{}, fmt.Errorf("read %s: %w", resource, err)
	}
	return r, nil
}

// response is an answer read in full.
type response struct {
	status int
	header http.Header
	body   []byte
}

// do sends one request and reads its answer within the timeout, if any. A
// request that could not even connect is reported as definitely not
// applied: it never left. Everything else that fails is an unknown outcome.
func (t *Target) do(ctx context.Context, build func(context.Context, op) (*http.Request, error), o op) (*response, error) {
	if t.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, t.timeout)
		defer cancel()
	}
	req, err := build(ctx, o)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", targets.ErrDefinitelyNotApplied, err)
	}
	resp, err := t.client.Do(req)
	if err != nil {
		if isDialError(err) {
			return nil, fmt.Errorf("%w: %w", targets.ErrDefinitelyNotApplied, err)
		}
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse+1))
	if err != nil {
		return nil, fmt.Errorf("read the answer (status %d): %w", resp.StatusCode, err)
	}
	if len(body) > maxResponse {
		return nil, fmt.Errorf("answer (status %d) larger than %d bytes", resp.StatusCode, maxResponse)
	}
	return &response{status: resp.StatusCode, header: resp.Header, body: body}, nil
}

func isDialError(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// url is a request's URL: the base URL, the adapter's path (which may
// carry a query of its own) and the base URL's query.
func (t *Target) url(path string) string {
	u := t.base.String() + path
	switch {
	case t.query == "":
		return u
	case strings.Contains(path, "?"):
		return u + "&" + t.query
	}
	return u + "?" + t.query
}

// newRequest is http.NewRequestWithContext with the target's headers.
func (t *Target) newRequest(ctx context.Context, method, path string, body io.Reader) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, t.url(path), body)
	if err != nil {
		return nil, err
	}
	for name, values := range t.header {
		req.Header[http.CanonicalHeaderKey(name)] = slices.Clone(values)
	}
	if tc, ok := targets.TraceFrom(ctx); ok && t.trace {
		req.Header.Set(targets.TraceparentHeader, tc.Traceparent())
	}
	return req, nil
}

func (t *Target) writeRequest(ctx context.Context, o op) (*http.Request, error) {
	w := t.adapter.Write
	o.trace = traceID(ctx)
	body := o.value
	if w.JSONBody != "" {
		body = o.jsonBody(w.JSONBody)
	}
	req, err := t.newRequest(ctx, w.Method, o.path(w.Path), strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	if w.ContentType != "" {
		req.Header.Set("Content-Type", w.ContentType)
	}
	addTemplates(req, o, w.Query, w.Headers)
	if o.tokenless {
		return req, nil // nothing to describe: see WriteWithoutToken
	}
	tok := strconv.FormatUint(o.token, 10)
	switch kind, name, _ := strings.Cut(w.TokenIn, ":"); kind {
	case "header":
		req.Header.Set(name, tok)
	case "query":
		q := req.URL.Query()
		q.Set(name, tok)
		req.URL.RawQuery = q.Encode()
	}
	t.describe(req, "write", o)
	return req, nil
}

// addTemplates adds the adapter's query parameters and headers, filled
// in, to a request.
func addTemplates(req *http.Request, o op, query, headers map[string]string) {
	if len(query) > 0 {
		q := req.URL.Query()
		o.fillText(query, q.Set)
		req.URL.RawQuery = q.Encode()
	}
	o.fillText(headers, req.Header.Set)
}

func (t *Target) readRequest(ctx context.Context, o op) (*http.Request, error) {
	r := t.adapter.Read
	o.trace = traceID(ctx)
	var body io.Reader
	if r.JSONBody != "" {
		body = strings.NewReader(o.jsonBody(r.JSONBody))
	}
	req, err := t.newRequest(ctx, r.Method, o.path(r.Path), body)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	addTemplates(req, o, r.Query, r.Headers)
	t.describe(req, "read", o)
	return req, nil
}

func (t *Target) describe(req *http.Request, f string, o op) {
	if t.desc != nil {
		t.desc(req.Header, f, o.resource, o.token)
	}
}

// outcome maps a write's answer by the first outcome rule that holds:
// accepted, rejected, or an error for an unknown outcome, which is also
// what an answer no rule holds for is.
func (c compiled) outcome(r *response) (histories.Outcome, error) {
	a := &answer{response: r}
	for _, rule := range c.outcomes {
		if !rule.holds(a) {
			continue
		}
		switch rule.outcome {
		case OutcomeAccepted:
			return histories.Accepted, nil
		case OutcomeRejected:
			return histories.Rejected, nil
		}
		return 0, fmt.Errorf("status %d, unknown by %s%s", r.status, rule.name, snippet(r.body))
	}
	return 0, fmt.Errorf("status %d, which no outcome rule matches%s", r.status, snippet(r.body))
}

// reading extracts a read's answer.
func (c compiled) reading(r *response) (targets.Reading, error) {
	s := c.Read
	hasToken := s.TokenFrom != "none"
	a := &answer{response: r}
	if slices.ContainsFunc(c.notFound, func(m matcher) bool { return m.holds(a) }) {
		return targets.Reading{HasToken: hasToken}, nil
	}
	if r.status < 200 || r.status >= 300 {
		return targets.Reading{}, fmt.Errorf("status %d%s", r.status, snippet(r.body))
	}
	var doc document
	if s.needsDocument() {
		var err error
		if doc, err = a.document(); err != nil {
			return targets.Reading{}, err
		}
	}
	got := targets.Reading{Found: true, HasToken: hasToken}
	var err error
	if got.Value, err = extract(s.ValueFrom, r, doc); err != nil {
		return targets.Reading{}, fmt.Errorf("value: %w", err)
	}
	if hasToken {
		tok, err := extract(s.TokenFrom, r, doc)
		if err == nil {
			got.Token, err = parseToken(tok)
		}
		if err != nil {
			return targets.Reading{}, fmt.Errorf("token: %w", err)
		}
	}
	return got, nil
}

func (s ReadSpec) needsDocument() bool {
	return isField(s.ValueFrom) || isField(s.TokenFrom)
}

// extract reads "body", "header:NAME" or "field:PATH" from an answer.
func extract(source string, r *response, doc document) (string, error) {
	kind, name, _ := strings.Cut(source, ":")
	switch kind {
	case "body":
		return string(r.body), nil
	case "header":
		vs := r.header.Values(name)
		if len(vs) != 1 {
			return "", fmt.Errorf("want one %s header, got %d", name, len(vs))
		}
		return vs[0], nil
	}
	return doc.fieldString(name)
}

// snippet quotes the start of a body for error messages.
func snippet(body []byte) string {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return ""
	}
	if len(body) > 120 {
		body = append(body[:120:120], "…"...)
	}
	return fmt.Sprintf(": %q", body)
}
