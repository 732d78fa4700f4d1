package explore

import (
	"context"
	"testing"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/harness"
	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/targets"
	"github.com/fencecheck/fencecheck/targets/memory"
)

// BenchmarkSweepFenced is `fencecheck sweep --target memory://fenced`:
// default runs (8 workers, 4 resources, 5 s of virtual time, pause and
// delay), each checked, on every processor, with the sweep's log;
// runs/s is the figure that matters.
func BenchmarkSweepFenced(b *testing.B) {
	cfg := harness.DefaultConfig()
	cfg.Target.Name, cfg.Runtime.Deterministic, cfg.Store.Dir = "memory://fenced", true, schema.TempDir(b)
	opts := DefaultOptions()
	opts.Seeds, opts.Store = Seeds{First: 1, Last: uint64(b.N)}, cfg.Store.Dir
	opts.NewTarget = func() (targets.Target, error) { return memory.NewFenced(), nil }
	b.ReportAllocs()
	b.ResetTimer()
	res, err := Sweep(context.Background(), cfg, opts)
	if err != nil {
		b.Fatal(err)
	}
	if res.Violated > 0 || res.Runs != b.N {
		b.Fatalf("%d runs, %s: %s", res.Runs, res.Verdict, res.Reason)
	}
	if b.N >= 20 && res.Verdict != judge.Held {
		b.Fatalf("%s: %s", res.Verdict, res.Reason)
	}
	b.ReportMetric(float64(res.Runs)/b.Elapsed().Seconds(), "runs/s")
}
