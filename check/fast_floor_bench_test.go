package check_test

import (
	"runtime"
	"sync"
	"testing"
	"unsafe"

	"github.com/fencecheck/fencecheck/histories"
)

// BenchmarkCheckFloor times a pass that judges nothing, to show how far
// the fast checker is from what the hardware allows where it is furthest
// from 100 times porcupine's speed: on the 50-resource cells of
// BenchmarkCheckers porcupine checks each resource's nearly sequential
// history at 1.1 to 2.5 µs per operation, so 100 times its speed means 11
// to 25 ns per operation.
//
// The touch pass does less than any exact checker must: it finds each
// operation's resource and compares accepted tokens and read values with
// its resource's last accepted write. An exact checker must also handle
// concurrency, unknown outcomes, rejections and reads of older writes.
//
// The two cores take one half of the history each, the cheapest split
// for a pass that keeps no order between the halves. ns/operation is the
// time per operation of the history.
//
//	go test ./check -run '^$' -bench 'BenchmarkCheckFloor' -count 6
func BenchmarkCheckFloor(b *testing.B) {
	for _, c := range []benchCell{
		{Resources: 50, Clients: 5, Ops: 10_000},
		{Resources: 50, Clients: 50, Ops: 10_000},
		{Resources: 50, Clients: 5, Ops: 100_000},
		{Resources: 50, Clients: 50, Ops: 100_000},
		{Resources: 50, Clients: 5, Ops: 1_000_000},
		{Resources: 50, Clients: 50, Ops: 1_000_000},
		{Resources: 50, Clients: 50, Ops: 100_000, Unknown: 0.1},
		{Resources: 1, Clients: 5, Ops: 10_000},
		{Resources: 1, Clients: 5, Ops: 100_000},
	} {
		ops := c.history()
		b.Run(c.String()+"/touch", func(b *testing.B) {
			workers := runtime.GOMAXPROCS(0)
			counts := make([]int, workers) // kept, so that no pass is optimized away
			for b.Loop() {
				var wg sync.WaitGroup
				for w := range workers {
					wg.Add(1)
					go func() {
						defer wg.Done()
						counts[w] = touchPass(ops[len(ops)*w/workers : len(ops)*(w+1)/workers])
					}()
				}
				wg.Wait()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(c.Ops), "ns/operation")
		})
	}
}

// touchPass is BenchmarkCheckFloor's pass over one stretch of a history:
// it finds each operation's resource and compares each accepted write's
// token with its resource's highest and each read's value with the value
// of its resource's last accepted write; it returns the operations that
// differ. It finds a resource by the address of its name's bytes, which
// the reader and the generator share among a resource's operations, in a
// table with open addressing, written out in the loop (a call per
// operation would be a good part of what is measured).
func touchPass(ops []histories.Operation) int {
	type resource struct {
		token uint64
		value string
	}
	var table [256]struct {
		name *byte
		at   int
	}
	resources := make([]resource, 0, 64)
	differ := 0
	for i := range ops {
		o := &ops[i]
		if o.Status == histories.StatusFailed || (o.F == histories.FRead && o.Status == histories.StatusUnknown) {
			continue // as the checkers leave them out
		}
		p := unsafe.StringData(o.Resource)
		h := uint8((uintptr(unsafe.Pointer(p)) * 0x9E3779B97F4A7C15) >> 56)
		for table[h].name != p && table[h].name != nil {
			h++
		}
		if table[h].name == nil {
			if len(resources) == len(table)/2 {
				panic("touchPass: more resources than its table holds")
			}
			table[h].name, table[h].at = p, len(resources)
			resources = append(resources, resource{})
		}
		r := &resources[table[h].at]
		switch {
		case o.F == histories.FWrite && o.Status == histories.StatusAccepted:
			if o.Token <= r.token {
				differ++
			}
			r.token, r.value = o.Token, o.Value
		case o.F == histories.FRead && o.Value != r.value:
			differ++
		}
	}
	return differ
}
