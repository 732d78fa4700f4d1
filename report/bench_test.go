package report_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/harness"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/report"
	"github.com/fencecheck/fencecheck/runstore"
	"github.com/fencecheck/fencecheck/targets/memory"
)

// BenchmarkReport writes the report of a valid run, as fencecheck run
// does at its end: report.html with its plots and timeline.html. It
// reports the size of both files. The 100,000-operation case is the one
// docs/performance.md quotes:
//
//	go test -run '^$' -bench 'Report/ops=100000' -benchtime 3x ./report
func BenchmarkReport(b *testing.B) {
	for _, ops := range []int{1000, 100000} {
		b.Run("ops="+strconv.Itoa(ops), func(b *testing.B) {
			faults, err := nemesis.Parse("pause,delay")
			if err != nil {
				b.Fatal(err)
			}
			cfg := harness.DefaultConfig()
			cfg.Target.Receiver, cfg.Target.Name, cfg.Nemesis.Faults, cfg.Runtime.Seed, cfg.Gates.MinStale = memory.NewFenced(), "memory://fenced", faults, 1, 0
			cfg.Workload.Duration, cfg.Workload.Ops, cfg.Runtime.Deterministic, cfg.Store.Dir, cfg.Store.NoReport = 0, ops, true, schema.TempDir(b), true
			res, err := harness.Run(context.Background(), cfg)
			if err != nil {
				b.Fatal(err)
			}
			in := res.ReportInput()
			dir := schema.TempDir(b)
			b.ResetTimer()
			for range b.N {
				if _, err := report.Write(dir, in, report.DefaultLimits()); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(res.Counts.Operations), "operations")
			b.ReportMetric(size(b, dir, runstore.Report)/1e6, "report-MB")
			b.ReportMetric(size(b, dir, runstore.Timeline)/1e6, "timeline-MB")
		})
	}
}

func size(b *testing.B, dir, name string) float64 {
	st, err := os.Stat(filepath.Join(dir, name))
	if err != nil {
		b.Fatal(err)
	}
	return float64(st.Size())
}
