package verify

import (
	"context"
	"fmt"
	"sync"

	"github.com/fencecheck/fencecheck/histories"
)

// The shape of acknowledged-writes: ackResources resources written at
// once, each ackWritesEach times in a row. ackResources stays below the
// connections a target opened for the battery may use (the CLI's 10).
const (
	ackResources  = 8
	ackWritesEach = 50
)

// AcknowledgedWrites is how many acknowledged writes the scenario reads
// back: 400. A receiver that loses each acknowledged write independently
// with probability 1/50 passes it with probability (49/50)^400 ≈ 3.1e-4;
// one that loses one in 100, (99/100)^400 ≈ 1.8e-2. The rest of the
// battery makes 48 writes, after which such a receiver passes
// (49/50)^48 ≈ 38% of the time.
const AcknowledgedWrites = ackResources * ackWritesEach

// acknowledgedWrites writes each of its resources many times with
// increasing tokens and reads each write back at once: every write must
// be accepted, and every read must return it. A receiver that
// acknowledges a write and then does not keep it (a write-back cache that
// drops entries, a buffer not flushed, an error swallowed after the
// answer) answers every single write correctly; only a read after it
// shows the loss, and a rare loss needs many reads to be seen. The
// resources run concurrently, each one's writes in order.
//
// What it does not cover: a loss later than the read right after the
// write (the read may be served from what is then lost), and a loss only
// under load or faults (run covers those, with its final reads).
var acknowledgedWrites = scenario{
	name:   "acknowledged-writes",
	hazard: "the receiver acknowledges a write it does not keep",
	run: func(ctx context.Context, s *script) Row {
		out := Row{Expected: fmt.Sprintf("%d writes (%d resources × %d, increasing tokens) each accepted and read back at once",
			AcknowledgedWrites, ackResources, ackWritesEach)}
		results := make([]ackResult, ackResources)
		var wg sync.WaitGroup
		for i := range results {
			r := s.resource()
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i] = writeAndReadBack(ctx, s, r)
			}()
		}
		wg.Wait()
		var sum ackResult
		for _, res := range results {
			if res.err != nil {
				return s.abort(res.err)
			}
			sum.add(res)
		}
		out.Observed, out.Result = sum.judge()
		return out
	},
}

// minChecked is how many writes must be acknowledged and read back for a
// pass: (49/50)^360 ≈ 7e-4. Fewer, because outcomes were unknown (a
// receiver too slow for the request timeout), and the row is skipped with
// the reason: unknown outcomes hide no acknowledged write, but they leave
// too few to tell.
const minChecked = AcknowledgedWrites * 9 / 10

// ackResult is what one resource's writes showed: how many were
// acknowledged and read back (checked), acknowledged and then not read
// back (lost), answered with a rejection (rejected: a correct receiver
// accepts every one of these increasing tokens), or had an unknown
// outcome, of the write or of every read after it (unknown), and the
// first finding and the first unknown outcome in words.
type ackResult struct {
	checked, lost, rejected, unknown int
	first, firstUnknown              string
	err                              error // the token issuer's, which ends the battery
}

// add adds r's counts to a's, keeping a's first finding if it has one.
func (a *ackResult) add(r ackResult) {
	a.checked += r.checked
	a.lost += r.lost
	a.rejected += r.rejected
	a.unknown += r.unknown
	if a.first == "" {
		a.first = r.first
	}
	if a.firstUnknown == "" {
		a.firstUnknown = r.firstUnknown
	}
}

// judge is the row's observation and result.
func (a *ackResult) judge() (string, Result) {
	unknown := ""
	if a.unknown > 0 {
		unknown = fmt.Sprintf(" (%d outcomes unknown, first: %s)", a.unknown, a.firstUnknown)
	}
	switch {
	case a.lost > 0 || a.rejected > 0:
		return fmt.Sprintf("%d acknowledged writes lost, %d rejected, of %d; first: %s", a.lost, a.rejected, AcknowledgedWrites, a.first), Fail
	case a.checked < minChecked:
		return fmt.Sprintf("skipped: only %d of %d writes acknowledged and read back%s, too few to find a loss of 1 in 50", a.checked, AcknowledgedWrites, unknown), Skip
	}
	return fmt.Sprintf("%d of %d accepted, each read back%s", a.checked, AcknowledgedWrites, unknown), Pass
}

// readAttempts is how many times a read after a write is tried while its
// outcome is unknown: a read changes nothing, so it can be repeated.
const readAttempts = 3

// writeAndReadBack writes resource ackWritesEach times, each time with a
// token above the last, and reads it back after each write.
func writeAndReadBack(ctx context.Context, s *script, resource string) ackResult {
	var res ackResult
	note := func(first *string, what string) {
		if *first == "" {
			*first = fmt.Sprintf("%s: %s", resource, what)
		}
	}
	for i := 1; i <= ackWritesEach; i++ {
		toks, done, err := s.owners(ctx, resource, uint64(i))
		if err != nil {
			res.err = err
			return res
		}
		tok, value := toks[0], fmt.Sprintf("ack-%d", i)
		w := s.write(ctx, resource, tok, value)
		var got reading
		if w.err == nil {
			for range readAttempts {
				if got = s.read(ctx, resource); got.err == nil {
					break
				}
			}
		}
		done()
		what := fmt.Sprintf("write %d of %d (token %d, %q)", i, ackWritesEach, tok, value)
		switch {
		case w.err != nil:
			// Applied or not, the read after it cannot tell a loss.
			res.unknown++
			note(&res.firstUnknown, fmt.Sprintf("%s %s", what, w))
		case !w.is(histories.Accepted):
			res.rejected++
			note(&res.first, fmt.Sprintf("%s %s", what, w))
		case got.err != nil:
			res.unknown++
			note(&res.firstUnknown, fmt.Sprintf("%s accepted, then %s", what, got))
		case !got.holds(value, tok):
			res.lost++
			note(&res.first, fmt.Sprintf("%s accepted, then %s: the acknowledged write was lost", what, got))
		default:
			res.checked++
		}
	}
	return res
}
