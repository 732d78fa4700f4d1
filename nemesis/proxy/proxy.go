// Package proxy is a fault-injecting HTTP reverse proxy between the
// workers and a receiver. Its faults compose like toxiproxy's toxics: each
// is one file, each sees a request on its way and decides what reaches the
// receiver and what the worker gets back:
//
//	worker ──request──> Proxy ──> Toxic 1 ──> Toxic 2 ──> … ──> receiver
//	worker <──answer──────────── (or a dropped connection: unknown outcome)
//
// Every toxic is a nemesis.Fault: the run's schedule switches it on and off,
// it records each action as begin/end nemesis events through the Env, and
// a Selector scripts exactly which requests it acts on.
package proxy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fencecheck/fencecheck/internal/httpclient"
	"github.com/fencecheck/fencecheck/internal/redact"
	"github.com/fencecheck/fencecheck/nemesis/internal/toxic"
)

// Request is one request through the proxy, read in full. The http target
// describes it (Fencecheck-* headers, removed before forwarding); a request
// without a description has an empty Op.
type Request struct {
	Seq      int64  // 1 for the first request through the proxy
	Op       string // "write", "read" or ""
	Resource string
	Token    uint64 // writes only
	Method   string
	Target   string // path and query
	Header   http.Header
	Body     []byte
}

// IsWrite reports whether the request is a described write.
func (r *Request) IsWrite() bool { return r.Op == OpWrite }

func (r *Request) String() string {
	if r.IsWrite() {
		return fmt.Sprintf("request %d (write of token %d to %s)", r.Seq, r.Token, r.Resource)
	}
	if r.Op == "read" {
		return fmt.Sprintf("request %d (read of %s)", r.Seq, r.Resource)
	}
	return fmt.Sprintf("request %d (%s %s)", r.Seq, r.Method, r.Target)
}

// Response is the receiver's answer, read in full.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Forward passes a request on towards the receiver.
type Forward func(ctx context.Context, r *Request) (*Response, error)

// Toxic acts on requests through the proxy. It calls next zero or more
// times and returns what the worker sees; an error drops the worker's
// connection without an answer.
type Toxic interface {
	Pipe(ctx context.Context, r *Request, next Forward) (*Response, error)
}

// errDropped is returned by toxics that withhold the answer.
var errDropped = errors.New("proxy: answer dropped")

// maxBody bounds what the proxy buffers of a request or an answer.
const maxBody = 8 << 20

// Proxy forwards to one receiver through a chain of toxics.
type Proxy struct {
	upstream *url.URL
	toxics   []Toxic
	client   *http.Client
	srv      *http.Server
	ln       net.Listener
	seq      atomic.Int64
	leave    sync.Once // the toxics leave the proxy once, at the first Close
	// Deliveries outlive the worker's request: a held write still
	// reaches the receiver after the worker gave up. Close waits for them.
	deliveries sync.WaitGroup
}

// Timeout bounds each delivery to the receiver.
const Timeout = 10 * time.Second

// Start listens on a free loopback port and forwards to upstream.
func Start(upstream string, toxics ...Toxic) (*Proxy, error) {
	u, err := url.Parse(upstream)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("proxy upstream %q: not a URL", redact.Spec(upstream))
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("proxy listen: %w", err)
	}
	p := &Proxy{upstream: u, toxics: toxics, ln: ln,
		// Sized like a target for 30 workers: 64 idle connections, as
		// many as the proxy can have in flight upstream.
		client: httpclient.New(30, Timeout),
	}
	p.srv = &http.Server{Handler: p, ReadHeaderTimeout: 5 * time.Second, IdleTimeout: 60 * time.Second}
	go func() { _ = p.srv.Serve(ln) }()
	toxic.Enter(toxics) // each now knows it is available (nemesis.Fault)
	return p, nil
}

// URL is where workers send their requests.
func (p *Proxy) URL() string {
	u := *p.upstream
	u.Host = p.ln.Addr().String()
	return u.String()
}

// Close stops accepting, waits (bounded) for deliveries still on their
// way, and closes the listener.
func (p *Proxy) Close() error {
	done := make(chan struct{})
	go func() { p.deliveries.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(Timeout):
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = p.srv.Shutdown(ctx)
	p.client.CloseIdleConnections()
	p.leave.Do(func() { toxic.Leave(p.toxics) })
	return nil
}

// ServeHTTP reads the request, runs it through the toxics and answers. The
// chain runs detached from the worker's connection: a request that has
// left the worker is not withdrawn when the worker stops waiting.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, hr *http.Request) {
	req, err := p.read(hr)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	p.deliveries.Add(1)
	answer := make(chan result, 1)
	go func() {
		defer p.deliveries.Done()
		ctx, cancel := context.WithTimeout(context.Background(), 3*Timeout)
		defer cancel()
		resp, err := p.chain(0)(ctx, req)
		answer <- result{resp, err}
	}()
	var res result
	select {
	case res = <-answer:
	case <-hr.Context().Done():
		return // the worker gave up; the delivery goes on
	}
	if res.err != nil {
		panic(http.ErrAbortHandler) // close the connection without an answer
	}
	for k, vs := range res.resp.Header {
		w.Header()[k] = vs
	}
	w.WriteHeader(res.resp.Status)
	_, _ = w.Write(res.resp.Body)
}

type result struct {
	resp *Response
	err  error
}

func (p *Proxy) read(hr *http.Request) (*Request, error) {
	body, err := io.ReadAll(io.LimitReader(hr.Body, maxBody+1))
	if err != nil || len(body) > maxBody {
		return nil, fmt.Errorf("proxy: reading the request body: %v", err)
	}
	h := hr.Header.Clone()
	req := &Request{Seq: p.seq.Add(1), Op: h.Get(HeaderOp), Resource: h.Get(HeaderResource),
		Method: hr.Method, Target: hr.URL.RequestURI(), Header: h, Body: body}
	req.Token, _ = strconv.ParseUint(h.Get(HeaderToken), 10, 64)
	for _, k := range []string{HeaderOp, HeaderResource, HeaderToken} {
		h.Del(k)
	}
	return req, nil
}

// chain returns the forward that starts at toxic i.
func (p *Proxy) chain(i int) Forward {
	if i == len(p.toxics) {
		return p.deliver
	}
	return func(ctx context.Context, r *Request) (*Response, error) {
		return p.toxics[i].Pipe(ctx, r, p.chain(i+1))
	}
}

// deliver sends the request to the receiver.
func (p *Proxy) deliver(ctx context.Context, r *Request) (*Response, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	u := *p.upstream
	target, err := url.ParseRequestURI(r.Target)
	if err != nil {
		return nil, fmt.Errorf("proxy: %w", err)
	}
	u.Path, u.RawPath, u.RawQuery = target.Path, target.RawPath, target.RawQuery
	hr, err := http.NewRequestWithContext(ctx, r.Method, u.String(), bytes.NewReader(r.Body))
	if err != nil {
		return nil, fmt.Errorf("proxy: %w", err)
	}
	hr.Header = r.Header.Clone()
	resp, err := p.client.Do(hr)
	if err != nil {
		return nil, fmt.Errorf("proxy: deliver %s: %w", r, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return nil, fmt.Errorf("proxy: read the answer to %s: %w", r, err)
	}
	return &Response{Status: resp.StatusCode, Header: resp.Header.Clone(), Body: body}, nil
}
