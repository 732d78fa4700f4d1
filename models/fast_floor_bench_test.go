package models_test

import (
	"math"
	"runtime"
	"sync"
	"testing"
	"unsafe"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/models"
)

// BenchmarkCheckFloor times a pass that does less than any exact checker
// of these histories must do, to show how far the fast checker is from
// what the hardware allows where it is furthest from 100 times porcupine's
// speed: on the 50-resource cells of BenchmarkCheckers porcupine checks
// each resource's nearly sequential history at 1.1 to 2.5 µs per
// operation, so 100 times its speed means 11 to 25 ns per operation. The
// pass is not a checker and judges nothing: it only finds each
// operation's resource (a lookup by the name's address, which the reader
// interns), compares each accepted write's token with its resource's
// highest, and compares each read's value with the value of its
// resource's last accepted write. An exact checker must do at least that,
// and also handle concurrency (the mismatches it counts), unknown
// outcomes, rejections and reads of older writes. The two cores take one
// half of the history each, the cheapest split for a pass that keeps no
// order between them.
//
//	go test ./models -run '^$' -bench 'BenchmarkCheckFloor' -count 6
//
// ns/operation is the time per operation of the history; mismatches/op
// the share of operations this pass could not explain by itself. Each
// cell also reports, outside the time, what a design that cuts each
// resource's history into pieces could leave to an exact check (see
// quiescentPieces); the one-resource cells show that with one resource
// and five clients there are no cuts.
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
		b.Run(c.String(), func(b *testing.B) {
			workers := runtime.GOMAXPROCS(0)
			mismatches := make([]int, workers)
			for b.Loop() {
				var wg sync.WaitGroup
				for w := range workers {
					wg.Add(1)
					go func() {
						defer wg.Done()
						mismatches[w] = floorPass(ops[len(ops)*w/workers : len(ops)*(w+1)/workers])
					}()
				}
				wg.Wait()
			}
			total := 0
			for _, m := range mismatches {
				total += m
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(c.Ops), "ns/operation")
			b.ReportMetric(float64(total)/float64(c.Ops), "mismatches/op")
			groups, _ := models.Prepare(ops, models.Options{})
			pieces := quiescentPieces(groups)
			b.ReportMetric(pieces.badShare, "ops-in-bad-pieces/op")
			b.ReportMetric(pieces.meanLen, "ops/piece")
		})
	}
}

// floorPass is BenchmarkCheckFloor's pass over one stretch of a history.
// It returns how many operations it could not explain: accepted writes
// whose token is not above their resource's highest, and reads of a value
// other than the last accepted one.
func floorPass(ops []histories.Operation) int {
	type slot struct {
		name *byte
		at   int
	}
	type resource struct {
		highest uint64
		value   string
	}
	var table [256]slot // open addressing by the name's address
	resources := make([]resource, 0, 64)
	mismatches := 0
	for i := range ops {
		o := &ops[i]
		name := unsafe.StringData(o.Resource)
		h := uint8((uintptr(unsafe.Pointer(name)) * 0x9E3779B97F4A7C15) >> 56)
		for table[h].name != name && table[h].name != nil {
			h++
		}
		if table[h].name == nil {
			if len(resources) == len(table)/2 {
				panic("floorPass: more resources than its table holds")
			}
			table[h] = slot{name, len(resources)}
			resources = append(resources, resource{})
		}
		r := &resources[table[h].at]
		switch {
		case o.F == histories.FWrite && o.Status == histories.StatusAccepted:
			if o.Token <= r.highest {
				mismatches++
			}
			r.highest, r.value = o.Token, o.Value
		case o.F == histories.FRead && o.Status == histories.StatusOK:
			if o.Value != r.value {
				mismatches++
			}
		}
	}
	return mismatches
}

// pieceStats is what quiescentPieces reports.
type pieceStats struct {
	badShare float64 // the share of operations in pieces that need a real check
	meanLen  float64 // operations per piece
}

// quiescentPieces measures a design that BenchmarkCheckFloor's pass
// suggests: cut each resource's history (filtered and capped as the
// checkers see it) where none of its operations is in flight, simulate
// each piece in order of invocation from the state the cut leaves, each
// operation placed at its invocation, and leave to an exact check only the
// pieces where that simulation fails. An order of operations placed at
// points inside their intervals is a linearization whenever the register
// answers every operation as recorded, so a piece the simulation explains
// needs nothing more. Under strict the state at a cut is forced (the
// accepted write with the highest token so far, as every write that can
// still take effect has a lower token); an unknown write is taken to have
// no effect, so a piece that reads it fails. It reports the share of
// operations in failed pieces and the mean length of a piece.
func quiescentPieces(groups []models.Group) pieceStats {
	var ops, bad, pieces int
	for _, g := range groups {
		var highest, top uint64
		var value, topValue string
		var written, topWritten bool
		maxReturn := int64(math.MinInt64)
		start, failed := 0, false
		closePiece := func(end int) {
			if end > start {
				pieces++
				if failed {
					bad += end - start
				}
			}
			start, failed = end, false
			highest, value, written = top, topValue, topWritten
		}
		for k := range g.Ops {
			o := &g.Ops[k]
			if o.Call > maxReturn {
				closePiece(k)
			}
			maxReturn = max(maxReturn, o.Return)
			switch {
			case o.F == histories.FWrite && o.Status == histories.StatusAccepted:
				if o.Token <= highest {
					failed = true
				}
				highest, value, written = o.Token, o.Value, true
				if o.Token > top {
					top, topValue, topWritten = o.Token, o.Value, true
				}
			case o.F == histories.FWrite && o.Status == histories.StatusRejected:
				if o.Token > highest {
					failed = true
				}
			case o.F == histories.FRead:
				if o.HasValue != written || o.Value != value || (o.HasToken && o.Token != highest) {
					failed = true
				}
			}
		}
		closePiece(len(g.Ops))
		ops += len(g.Ops)
	}
	if ops == 0 || pieces == 0 {
		return pieceStats{}
	}
	return pieceStats{badShare: float64(bad) / float64(ops), meanLen: float64(ops) / float64(pieces)}
}
