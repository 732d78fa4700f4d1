package harness

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fencecheck/fencecheck/runmetrics"
	"github.com/fencecheck/fencecheck/targets"
	"github.com/fencecheck/fencecheck/targets/memory"
	"github.com/fencecheck/fencecheck/workload"
)

// benchConfig is a run without think time, faults, extra reads or repeats:
// every job is one read and one write, as in plainLoop, so the difference
// is the harness (leases, recording, process bookkeeping, scheduling).
func benchConfig(b *testing.B, deterministic bool) Config {
	cfg := testConfig(b, memory.NewFenced(), "memory://fenced", func(c *Config) {
		c.SetLeaseTTL(time.Hour)
		c.Workload.Workers, c.Workload.Resources, c.Workload.Duration, c.Workload.Ops = 8, 64, 0, b.N
		c.Workload.Think, c.Workload.ReadShare, c.Workload.RepeatShare = 0, 0, 0
		c.Runtime.Deterministic, c.Runtime.Latency, c.skipJudge = deterministic, time.Nanosecond, true
	})
	return cfg
}

// BenchmarkHarness measures client operations per second through the whole
// run loop with recording to disk, against the in-memory fenced receiver;
// the -metrics modes with the Prometheus counters of run --metrics
// observing every event on the recording path. In real time the workers
// call that receiver themselves, since it answers at once (the workload's
// direct calls); realtime-tasks hides that, so that every request is a
// task of its own, as against a receiver that may keep it waiting.
func BenchmarkHarness(b *testing.B) {
	for _, mode := range []struct {
		name          string
		deterministic bool
		metrics       bool
		tasks         bool
	}{{"realtime", false, false, false}, {"realtime-tasks", false, false, true}, {"deterministic", true, false, false},
		{"realtime-metrics", false, true, false}, {"deterministic-metrics", true, true, false}} {
		b.Run(mode.name, func(b *testing.B) {
			cfg := benchConfig(b, mode.deterministic)
			if mode.metrics {
				cfg.Output.Observer = runmetrics.New(nil)
			}
			if mode.tasks {
				cfg.Target.Receiver = struct{ targets.Target }{cfg.Target.Receiver} // not Immediate
			}
			b.ReportAllocs()
			b.ResetTimer()
			if _, err := Run(context.Background(), cfg); err != nil {
				b.Fatal(err)
			}
		})
	}
}

// BenchmarkPlainLoop is the same work without the harness: 8 goroutines,
// each job a read and a write with the next token of its resource.
func BenchmarkPlainLoop(b *testing.B) {
	plainLoop(b, memory.NewFenced(), 8, 64)
}

// plainLoop runs b.N operations against tgt from workers goroutines, each
// job a read and a write with the next token of its resource, and nothing
// else: no leases, no recording, no task per request. A target that
// carries a trace context (targets.TraceCarrier) gets one per operation,
// drawn as the harness draws them (workload.TraceFor), so that both send
// the same requests: on PostgreSQL the traceparent comment makes every
// statement's text unique, which changes what the driver does with it.
func plainLoop(b *testing.B, tgt targets.Target, workers, resources int) {
	tokens := make([]atomic.Uint64, resources)
	var issued atomic.Int64
	ctx := context.Background()
	traced := targets.CarriesTrace(tgt)
	seed := fmt.Sprintf("plain loop %d", time.Now().UnixNano())
	seq := make([]uint64, workers) // each worker's next operation; a worker is one process
	opCtx := func(w int) context.Context {
		if !traced {
			return ctx
		}
		tc := workload.TraceFor(seed, w, seq[w])
		seq[w]++
		return targets.WithTrace(ctx, tc)
	}
	b.ReportAllocs()
	b.ResetTimer()
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for job := 0; ; job++ {
				if issued.Add(2) > int64(b.N) {
					return
				}
				r := (w + job*workers) % resources
				name := fmt.Sprintf("r%d", r)
				if _, err := tgt.Read(opCtx(w), name); err != nil {
					b.Error(err)
				}
				if _, err := tgt.Write(opCtx(w), name, tokens[r].Add(1), fmt.Sprintf("w%d-j%d", w, job)); err != nil {
					b.Error(err)
				}
			}
		}()
	}
	wg.Wait()
}
