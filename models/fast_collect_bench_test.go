package models

import (
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/fencecheck/fencecheck/models/internal/histgen"
)

// BenchmarkCollectFast measures the fast checker's collecting alone on
// BenchmarkCheckFast's 50-resource, 100,000-operation cell: the first pass
// (numbering each operation's resource) on one goroutine, and both passes
// as CheckFast runs them. It shows how much of a check is spent before any
// checking:
//
//	go test ./models -run '^$' -bench BenchmarkCollectFast -count 6
func BenchmarkCollectFast(b *testing.B) {
	const n = 100_000
	r := rand.New(rand.NewPCG(n, 50*100+50)) // BenchmarkCheckers' seed for the cell
	ops := histgen.Generate(r, histgen.Bench(n, 50, 50, 0.1, false))
	report := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/operation")
	}
	b.Run("first-pass", func(b *testing.B) {
		which := make([]int32, len(ops))
		for b.Loop() {
			numberResources(ops, which)
		}
		report(b)
	})
	b.Run("both-passes", func(b *testing.B) {
		var bufs collectBuffers
		chunks := max(1, min(runtime.GOMAXPROCS(0), len(ops)/4096))
		for b.Loop() {
			collectFast(ops, &bufs, chunks)
		}
		report(b)
	})
}
