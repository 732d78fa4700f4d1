package fencetest

import (
	"testing"

	"github.com/fencecheck/fencecheck/docs/schema"
)

// BenchmarkHandlerSynctest measures the wall time of a 10 s run on a
// synctest bubble's clock against an in-process handler: the
// check-then-set store, whose race it finds, and the one that compares
// and sets under its lock. synctest.Test takes a *testing.T, which a
// benchmark has none of; testing.RunTests, with which go test runs
// tests, gives one (each op is then one test, run -count times).
func BenchmarkHandlerSynctest(b *testing.B) {
	for _, bc := range stores {
		b.Run(bc.name, func(b *testing.B) {
			dir := schema.TempDir(b)
			run := func(t *testing.T) {
				rec := &recorder{TB: t}
				if res := runStore(rec, bc.window, dir); res.Verdict != bc.want || rec.fatal {
					t.Errorf("%s, want %s: %v", res.Verdict, bc.want, rec.errors)
				}
			}
			all := func(string, string) (bool, error) { return true, nil }
			for b.Loop() {
				if !testing.RunTests(all, []testing.InternalTest{{Name: b.Name(), F: run}}) {
					b.Fatal("the run's test failed")
				}
			}
		})
	}
}
