package check_test

import (
	"math"
	"runtime"
	"sync"
	"testing"
	"unsafe"

	"github.com/fencecheck/fencecheck/histories"
)

// BenchmarkCheckFloor times two passes that judge nothing, to show how far
// the fast checker is from what the hardware allows where it is furthest
// from 100 times porcupine's speed: on the 50-resource cells of
// BenchmarkCheckers porcupine checks each resource's nearly sequential
// history at 1.1 to 2.5 µs per operation, so 100 times its speed means 11
// to 25 ns per operation (see floorPass for what each pass does).
//
// The touch pass does less than any exact checker must: it finds each
// operation's resource and compares accepted tokens and read values with
// its resource's last accepted write. An exact checker must also handle
// concurrency, unknown outcomes, rejections and reads of older writes.
// The simulate pass adds the easy path of a design that cuts each
// resource's history into pieces where nothing is in flight and
// simulates each piece in order of invocation, leaving the pieces where
// that fails to an exact check. Outside the time, it also reports what
// that design would leave over (ops-in-failed-pieces/op) and how long a
// piece is (ops/piece), from one pass over the whole history; the
// one-resource cells show that with one resource and five clients there
// are no cuts.
//
// The two cores take one half of the history each, the cheapest split
// for passes that keep no order between the halves (the simulate pass
// does not join them). ns/operation is the time per operation of the
// history.
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
		for _, pass := range []struct {
			name     string
			simulate bool
		}{{"touch", false}, {"simulate", true}} {
			b.Run(c.String()+"/"+pass.name, func(b *testing.B) {
				workers := runtime.GOMAXPROCS(0)
				counts := make([]floorCount, workers) // kept, so that no pass is optimized away
				for b.Loop() {
					var wg sync.WaitGroup
					for w := range workers {
						wg.Add(1)
						go func() {
							defer wg.Done()
							counts[w] = floorPass(ops[len(ops)*w/workers:len(ops)*(w+1)/workers], pass.simulate)
						}()
					}
					wg.Wait()
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(c.Ops), "ns/operation")
				if pass.simulate {
					// What the design would leave over, from one pass over
					// the whole history, outside the time: the halves'
					// seam would fail pieces that one pass explains.
					whole := floorPass(ops, true)
					b.ReportMetric(float64(whole.unexplained)/float64(c.Ops), "ops-in-failed-pieces/op")
					b.ReportMetric(float64(c.Ops)/float64(max(whole.pieces, 1)), "ops/piece")
				}
			})
		}
	}
}

// floorCount is what floorPass counts.
type floorCount struct {
	unexplained int // operations the pass could not explain
	pieces      int // pieces cut (the simulate pass)
}

// floorPass is BenchmarkCheckFloor's pass over one stretch of a history:
// the touch pass, or with simulate the simulate pass.
//
// The touch pass finds each operation's resource and compares each
// accepted write's token with its resource's highest and each read's
// value with the value of its resource's last accepted write; it returns
// the operations that differ.
//
// The simulate pass also checks that the resource's operations come in
// order of invocation, cuts its history where none of its known
// operations is in flight, keeps the positions of the current piece's
// first 16 operations (what a search of a short failed piece needs), and
// simulates the register in order of invocation (unknown writes taking
// no effect), marking a piece failed at the first answer that differs;
// the next piece starts from the accepted write with the highest token,
// as it would after a search (under strict, once every write that could
// still take effect has returned, the last to take effect is the accepted
// write with the highest token). It returns the operations in failed pieces and out of
// order, and the number of pieces. It does not handle the seam between
// the two stretches, search failed pieces, apply unknown writes later,
// or wait for them before cutting.
//
// Both passes find a resource by the address of its name's bytes, which
// the reader and the generator share among a resource's operations, in a
// table with open addressing, written out in the loop (a call per
// operation would be a good part of what is measured).
func floorPass(ops []histories.Operation, simulate bool) floorCount {
	type state struct {
		token   uint64
		value   string
		written bool
	}
	type resource struct {
		cur, top  state // top: the accepted write with the highest token
		maxReturn int64
		lastCall  int64
		n         int32
		failed    bool
		piece     [16]int32
	}
	var table [256]struct {
		name *byte
		at   int
	}
	resources := make([]resource, 0, 64)
	var count floorCount
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
				panic("floorPass: more resources than its table holds")
			}
			table[h].name, table[h].at = p, len(resources)
			resources = append(resources, resource{maxReturn: math.MinInt64})
		}
		r := &resources[table[h].at]
		if !simulate {
			switch {
			case o.F == histories.FWrite && o.Status == histories.StatusAccepted:
				if o.Token <= r.cur.token {
					count.unexplained++
				}
				r.cur.token, r.cur.value = o.Token, o.Value
			case o.F == histories.FRead && o.Value != r.cur.value:
				count.unexplained++
			}
			continue
		}
		if o.Call < r.lastCall {
			count.unexplained++
		}
		r.lastCall = o.Call
		if o.Call > r.maxReturn { // a cut
			if r.failed {
				count.unexplained += int(r.n)
				r.cur = r.top
			}
			if r.n > 0 {
				count.pieces++
			}
			r.n, r.failed, r.maxReturn = 0, false, math.MinInt64
		}
		if r.n < int32(len(r.piece)) {
			r.piece[r.n] = int32(i)
		}
		r.n++
		if o.F != histories.FWrite || o.Status != histories.StatusUnknown {
			r.maxReturn = max(r.maxReturn, o.Return)
		}
		if o.F == histories.FWrite && o.Status == histories.StatusAccepted && (o.Token > r.top.token || !r.top.written) {
			r.top = state{o.Token, o.Value, true}
		}
		if r.failed {
			continue
		}
		switch {
		case o.F != histories.FWrite:
			r.failed = o.HasValue != r.cur.written || o.Value != r.cur.value || (o.HasToken && o.Token != r.cur.token)
		case o.Status == histories.StatusAccepted:
			r.failed = o.Token <= r.cur.token
			r.cur = state{o.Token, o.Value, true}
		case o.Status == histories.StatusRejected:
			r.failed = o.Token > r.cur.token
		}
	}
	for _, r := range resources {
		if r.failed {
			count.unexplained += int(r.n)
		}
		if r.n > 0 {
			count.pieces++
		}
	}
	return count
}
