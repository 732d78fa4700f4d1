package proxy

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	httptarget "github.com/fencecheck/fencecheck/targets/httptarget"
	"github.com/fencecheck/fencecheck/targets/httptarget/receiver"
)

// counting wraps the receiver and counts the PUTs that reach it.
type counting struct {
	h    http.Handler
	puts atomic.Int64
}

func (c *counting) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPut {
		c.puts.Add(1)
	}
	for _, k := range []string{"Fencecheck-Op", "Fencecheck-Resource", "Fencecheck-Token"} {
		if r.Header.Get(k) != "" {
			http.Error(w, "the proxy leaked its description header "+k, http.StatusTeapot)
			return
		}
	}
	c.h.ServeHTTP(w, r)
}

// seen is what a worker and the receiver saw of a write through the proxy.
type seen struct {
	outcome histories.Outcome
	err     error         // what the worker got instead of an answer
	took    time.Duration // how long the worker waited
	puts    int64         // PUTs that reached the receiver
	final   uint64        // the token the receiver holds at the end
}

// writeThroughProxy puts a reference receiver behind a proxy with toxic,
// scripted onto the write of token 2 to "r" and switched on, and writes
// token 1 then token 2 through it as a worker does.
func writeThroughProxy(t *testing.T, toxic Toxic, f *fault) seen {
	t.Helper()
	ctx := context.Background()
	rh, err := receiver.NewHandler(receiver.NewMemory(), receiver.DefaultOptions())
	require.NoError(t, err)
	recv := &counting{h: rh}
	srv := httptest.NewServer(recv)
	t.Cleanup(srv.Close)
	var toxics []Toxic
	if toxic != nil {
		f.Select = WriteOf("r", 2)
		f.SetActive(true)
		toxics = append(toxics, toxic)
	}
	p, err := Start(srv.URL, toxics...)
	require.NoError(t, err)
	t.Cleanup(func() { p.Close() })
	tgt, err := httptarget.New(p.URL(), slowOptions())
	require.NoError(t, err)

	out, err := tgt.Write(ctx, "r", 1, "first")
	require.NoError(t, err)
	require.Equal(t, histories.Accepted, out)
	start := time.Now()
	var s seen
	s.outcome, s.err = tgt.Write(ctx, "r", 2, "second")
	s.took = time.Since(start)
	require.NoError(t, p.Close()) // waits for deliveries still on their way
	s.puts = recv.puts.Load()
	direct, err := httptarget.New(srv.URL, httptarget.DefaultOptions())
	require.NoError(t, err)
	r, err := direct.Read(ctx, "r")
	require.NoError(t, err)
	s.final = r.Token
	return s
}

// TestProxyForwards: without toxics the proxy is transparent: each write
// reaches the receiver once, without the description headers, and the
// worker gets the receiver's answer.
func TestProxyForwards(t *testing.T) {
	t.Parallel()
	s := writeThroughProxy(t, nil, nil)
	require.NoError(t, s.err)
	assert.Equal(t, histories.Accepted, s.outcome)
	assert.Equal(t, int64(2), s.puts)
	assert.Equal(t, uint64(2), s.final)
}

// TestProxyDeliversAfterTheWorkerGaveUp: a request that has left the
// worker still reaches the receiver when the worker stops waiting, and
// Close waits for it.
func TestProxyDeliversAfterTheWorkerGaveUp(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	held := make(chan struct{})
	rh, err := receiver.NewHandler(receiver.NewMemory(), receiver.DefaultOptions())
	require.NoError(t, err)
	recv := &counting{h: rh}
	srv := httptest.NewServer(recv)
	t.Cleanup(srv.Close)
	gate := toxicFunc(func(ctx context.Context, r *Request, next Forward) (*Response, error) {
		close(held)
		<-release
		return next(ctx, r)
	})
	p, err := Start(srv.URL, gate)
	require.NoError(t, err)
	tgt, err := httptarget.New(p.URL(), slowOptions())
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := tgt.Write(ctx, "r", 1, "v"); done <- err }()
	<-held
	cancel()
	assert.Error(t, <-done, "the worker gave up")
	assert.Zero(t, recv.puts.Load(), "still held in the proxy")
	close(release)
	require.NoError(t, p.Close())
	assert.Equal(t, int64(1), recv.puts.Load(), "delivered after the worker gave up")
}

// toxicFunc makes a function a Toxic.
type toxicFunc func(ctx context.Context, r *Request, next Forward) (*Response, error)

func (f toxicFunc) Pipe(ctx context.Context, r *Request, next Forward) (*Response, error) {
	return f(ctx, r, next)
}

// slowOptions describe each request for the proxy and give it time for the
// toxics' delays.
func slowOptions() httptarget.Options {
	o := httptarget.DefaultOptions()
	o.Describe, o.Timeout = Describe, 5*time.Second
	return o
}
