package harness

import (
	"context"
	"net/http/httptest"
	"testing"

	httptarget "github.com/fencecheck/fencecheck/targets/httptarget"
	"github.com/fencecheck/fencecheck/targets/httptarget/receiver"
)

// httpTarget starts the reference receiver (memory store) on a loopback
// test server and returns a client target sized for 8 workers.
func httpTarget(b *testing.B) *httptarget.Target {
	h, err := receiver.NewHandler(receiver.NewMemory(), receiver.DefaultOptions())
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(h)
	b.Cleanup(srv.Close)
	tgt, err := httptarget.New(srv.URL, httptarget.DefaultOptions())
	if err != nil {
		b.Fatal(err)
	}
	return tgt
}

// BenchmarkHarnessHTTP is BenchmarkHarness in real time against the
// reference receiver over HTTP on loopback.
func BenchmarkHarnessHTTP(b *testing.B) {
	cfg := benchConfig(b, false)
	cfg.Target.Receiver, cfg.Target.Name = httpTarget(b), "http://reference"
	b.ReportAllocs()
	b.ResetTimer()
	if _, err := Run(context.Background(), cfg); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkPlainLoopHTTP is the same work over HTTP without the harness.
func BenchmarkPlainLoopHTTP(b *testing.B) { plainLoop(b, httpTarget(b), 8, 64) }
