package check_test

import "testing"

// BenchmarkCheckFastScale: the fast checker at 10k, 1M and 10M operations,
// one resource (every operation in one sweep) and 50 resources, with the
// explanation of the violations it finds, as BenchmarkCheckFast.
//
//	go test ./check -run '^$' -bench BenchmarkCheckFastScale -count 5
func BenchmarkCheckFastScale(b *testing.B) {
	for _, c := range []benchCell{
		{Resources: 1, Clients: 5, Ops: 10_000},
		{Resources: 1, Clients: 5, Ops: 1_000_000},
		{Resources: 1, Clients: 5, Ops: 10_000_000, Invalid: true},
		{Resources: 50, Clients: 50, Ops: 10_000, Unknown: 0.01},
		{Resources: 50, Clients: 50, Ops: 1_000_000, Unknown: 0.01},
		{Resources: 50, Clients: 50, Ops: 10_000_000, Unknown: 0.01},
	} {
		benchCheckFast(b, c)
	}
}
