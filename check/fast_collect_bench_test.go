package check

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/internal/testsupport/histgen"
)

// BenchmarkCollectFast splits the fast checker's time on the two cells of
// BenchmarkCheckers where it is furthest from 100 times porcupine's speed
// (50 resources, nearly sequential histories): the first pass of
// collecting (numbering each operation's resource) on one goroutine, both
// passes as CheckFast runs them. Set beside BenchmarkCheckFast's same
// cells, it shows how much of a check is spent before any checking:
//
//	go test ./check -run '^$' -bench 'BenchmarkCollectFast|BenchmarkCheckFast/resources=50/clients=(5|50)/ops=(10000|100000)$/' -count 6
func BenchmarkCollectFast(b *testing.B) {
	for _, c := range []struct {
		ops, clients int
		unknown      float64
	}{
		{10_000, 5, 0},
		{100_000, 50, 0.1},
	} {
		const resources = 50
		r := rand.New(rand.NewPCG(uint64(c.ops), resources*100+uint64(c.clients))) // BenchmarkCheckers' seed for the cell
		ops := histories.FromOperations(histgen.Generate(r, histgen.Bench(c.ops, resources, c.clients, c.unknown, false)))
		report := func(b *testing.B) {
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(c.ops), "ns/operation")
		}
		name := fmt.Sprintf("resources=%d/clients=%d/ops=%d/unknown=%g%%", resources, c.clients, c.ops, 100*c.unknown)
		b.Run(name+"/first-pass", func(b *testing.B) {
			local := make([]int32, ops.Resources())
			for b.Loop() {
				numberResources(ops.Ops, local)
			}
			report(b)
		})
		b.Run(name+"/both-passes", func(b *testing.B) {
			var bufs collectBuffers
			chunks := max(1, min(runtime.GOMAXPROCS(0), len(ops.Ops)/4096))
			for b.Loop() {
				collectFast(ops, &bufs, chunks)
			}
			report(b)
		})
	}
}
