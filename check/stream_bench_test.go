package check_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/fencecheck/fencecheck/check"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/internal/testsupport/histgen"
)

// BenchmarkStream measures the stream stage alone (Follower and Stream,
// no decoding) on 300,000 operations on 50 resources with 50 clients,
// 10 % unknown writes, valid: the per-operation cost of check --follow
// beyond reading.
func BenchmarkStream(b *testing.B) {
	var events []histories.Event
	_, err := histgen.Stream(rand.New(rand.NewPCG(1, 2)), histgen.Bench(300_000, 50, 50, 0.1, false), -1, func(e *histories.Event) error {
		events = append(events, *e)
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		s := check.NewStream(context.Background(), check.DefaultStreamOptions(), func(check.StreamViolation) { b.Fatal("violated") })
		f := histories.NewFollower(s)
		for i := range events {
			if err := f.Add(&events[i]); err != nil {
				b.Fatal(err)
			}
		}
		f.Finish()
		if _, _, err := s.Finish(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/300_000, "ns/op-in-history")
}
