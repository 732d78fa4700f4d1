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
// concurrency (the operations this pass counts as unexplained), unknown
// outcomes, rejections and reads of older writes. The simulate pass adds
// the easy path of a design that cuts each resource's history into
// pieces where nothing is in flight and simulates each piece in order of
// invocation, leaving the pieces where that fails to an exact check; it
// counts the operations of those pieces as unexplained. The touch pass
// also reports, outside the time, what that design would leave over with
// the state at each cut forced (see quiescentPieces); the one-resource
// cells show that with one resource and five clients there are no cuts.
//
// The two cores take one half of the history each, the cheapest split
// for passes that keep no order between the halves (the simulate pass
// does not join them). ns/operation is the time per operation of the
// history.
//
//	go test ./models -run '^$' -bench 'BenchmarkCheckFloor' -count 6
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
				unexplained := make([]int, workers)
				for b.Loop() {
					var wg sync.WaitGroup
					for w := range workers {
						wg.Add(1)
						go func() {
							defer wg.Done()
							unexplained[w] = floorPass(ops[len(ops)*w/workers:len(ops)*(w+1)/workers], pass.simulate)
						}()
					}
					wg.Wait()
				}
				total := 0
				for _, m := range unexplained {
					total += m
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(c.Ops), "ns/operation")
				b.ReportMetric(float64(total)/float64(c.Ops), "unexplained/op")
				if pass.name == "touch" {
					groups, _ := models.Prepare(ops, models.Options{})
					pieces := quiescentPieces(groups)
					b.ReportMetric(pieces.badShare, "ops-in-bad-pieces/op")
					b.ReportMetric(pieces.meanLen, "ops/piece")
				}
			})
		}
	}
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
// as it would after a search (strict forces that state at a cut, see
// quiescentPieces). It returns the operations in failed pieces and out of
// order. It does not handle the seam between the two stretches, search
// failed pieces, apply unknown writes later, or wait for them before
// cutting.
//
// Both passes find a resource by the address of its name's bytes, which
// the reader and the generator share among a resource's operations, in a
// table with open addressing, written out in the loop (a call per
// operation would be a good part of what is measured).
func floorPass(ops []histories.Operation, simulate bool) int {
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
	unexplained := 0
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
					unexplained++
				}
				r.cur.token, r.cur.value = o.Token, o.Value
			case o.F == histories.FRead && o.Value != r.cur.value:
				unexplained++
			}
			continue
		}
		if o.Call < r.lastCall {
			unexplained++
		}
		r.lastCall = o.Call
		if o.Call > r.maxReturn { // a cut
			if r.failed {
				unexplained += int(r.n)
				r.cur = r.top
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
			unexplained += int(r.n)
		}
	}
	return unexplained
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
