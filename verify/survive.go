package verify

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"syscall"
	"time"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/internal/termsafe"
	"github.com/fencecheck/fencecheck/targets"
	"github.com/fencecheck/fencecheck/targets/process"
)

// Reviver is a target whose receiver fencecheck started and can start
// again after it exited on its own: a receiver process (targets/process).
// Down says why the receiver is not running now (how it exited, with its
// last lines), nil while it runs; StartAgain starts it again after that.
//
// The battery asks after every scenario: a receiver that exited during
// one fails it, is started again, and the next scenario plays against
// it. A target without it is one fencecheck did not start: when its
// receiver stops answering, the scenarios after are not played.
type Reviver interface {
	Down() error
	StartAgain(ctx context.Context) error
}

var _ Reviver = (*process.Target)(nil)

const (
	// exitGrace and exitWait bound the wait, after a scenario the
	// receiver left an operation of unanswered, for it to either answer
	// again or be seen to have exited: a receiver that dies closes its
	// connections a moment before its exit is reported, and a loaded
	// machine can make that moment long. While nothing listens on its
	// address, it is exiting, and its exit is waited for up to exitWait,
	// a bound that only ends a wait that went wrong; a receiver that
	// listens but answers no read waits out exitGrace.
	exitGrace = 5 * time.Second
	exitWait  = time.Minute
	// probeInterval is the pause between two looks in that wait.
	probeInterval = 20 * time.Millisecond
	// quotedLines is how many of an exited receiver's last lines a row
	// quotes.
	quotedLines = 3
)

// survive looks at the receiver once a scenario has played, and says
// why the battery cannot play on ("" when it can). A receiver that
// exited during the scenario fails it, whatever its answers were: the
// row says how it exited, quotes its last lines, and, when it went away
// on a token above the ones it answered, suggests declaring the largest
// it answered as its largest token. A receiver fencecheck started is
// then started again; one it did not start cannot be, and the battery
// stops.
func (s *script) survive(ctx context.Context, row *Row) (stopped string) {
	if rv, ok := s.t.(Reviver); ok {
		return s.revive(ctx, rv, row)
	}
	if !s.answers.sawUnknown() {
		return ""
	}
	_, err := s.t.Read(ctx, s.probeResource())
	if !refused(err) {
		return "" // it answers, or is slow: the row says what it saw
	}
	row.exited, row.Result = true, Fail
	row.Observed = s.exitNote(row, "the receiver stopped answering ("+short(err)+")", nil) + "; " + row.Observed
	return fmt.Sprintf("the receiver stopped answering during %s (%s), and fencecheck did not start it, so it cannot start it again",
		s.scenario, short(err))
}

// revive fails the row of a scenario during which the receiver
// fencecheck started exited, and starts it again.
func (s *script) revive(ctx context.Context, rv Reviver, row *Row) (stopped string) {
	down := rv.Down()
	if down == nil && s.answers.sawUnknown() {
		down = s.settle(ctx, rv)
	}
	if down == nil {
		return ""
	}
	row.exited, row.Result = true, Fail
	var exit *process.ExitError
	what := "the receiver was not running (" + short(down) + ")"
	if errors.As(down, &exit) {
		what = fmt.Sprintf("the receiver exited (%s)", exit.State)
	}
	row.Observed = s.exitNote(row, what, exit) + "; " + row.Observed
	s.mark(histories.FBegin, "start the receiver again: it is not running")
	if err := rv.StartAgain(ctx); err != nil {
		s.mark(histories.FEnd, "the receiver did not start again")
		return fmt.Sprintf("the receiver went away during %s and did not start again: %s", s.scenario, startWords(err))
	}
	s.mark(histories.FEnd, "the receiver answers again")
	return ""
}

// startWords words why the receiver did not start again: how it exited
// and its last lines, or the error.
func startWords(err error) string {
	var exit *process.ExitError
	if !errors.As(err, &exit) {
		return short(err)
	}
	w := fmt.Sprintf("it exited (%s)", exit.State)
	if !exit.Ready {
		w += " before it was ready"
	}
	if lines := quoted(exit); len(lines) > 0 {
		w += `; its output ends: "` + strings.Join(lines, `" "`) + `"`
	}
	return w
}

// quoted are the last lines of an exited receiver, safe to print.
func quoted(exit *process.ExitError) []string {
	var lines []string
	for _, l := range exit.LastLines(quotedLines) {
		lines = append(lines, termsafe.String(l)) // the receiver's words
	}
	return lines
}

// settle waits until the receiver answers a read, or is seen to have
// exited (its Down error), for at most exitGrace, or exitWait while
// nothing listens on its address; nil when it answers or the wait ran
// out.
func (s *script) settle(ctx context.Context, rv Reviver) error {
	start := time.Now()
	for {
		if down := rv.Down(); down != nil {
			return down
		}
		_, err := s.t.Read(ctx, s.probeResource())
		if err == nil {
			return rv.Down() // it answered: alive then
		}
		bound := exitGrace
		if refused(err) {
			bound = exitWait
		}
		if time.Since(start) >= bound {
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(probeInterval):
		}
	}
}

// refused reports whether err says nothing listens on the receiver's
// address: a connection to it was refused.
func refused(err error) bool { return errors.Is(err, syscall.ECONNREFUSED) }

// probeResource is the resource the receiver is asked about between
// scenarios: never written, so a read of it changes nothing and is not
// recorded.
func (s *script) probeResource() string { return fmt.Sprintf("verify-%s-probe", s.o.RunID) }

// exitNote words how the receiver went away (what), the token it went
// away on, when that was a large token above every token it answered,
// with the largest it answered as the token domain to declare, and the
// last lines of an exited receiver, which row keeps for WriteText.
func (s *script) exitNote(row *Row, what string, exit *process.ExitError) string {
	var b strings.Builder
	b.WriteString(what)
	if on, largest, ok := s.answers.wentAwayOnLargeToken(); ok {
		fmt.Fprintf(&b, " on token %s, having answered tokens up to %s (if that is its largest token, declare it: %s %d)",
			targets.TokenName(on), targets.TokenName(largest), s.o.word(DeclaredMaxToken), largest)
	}
	if exit != nil {
		row.lastLines = quoted(exit)
	}
	if len(row.lastLines) > 0 {
		b.WriteString(`; its output ends: "` + strings.Join(row.lastLines, `" "`) + `"`)
	}
	return b.String()
}

// sawUnknown reports whether an operation's outcome was unknown.
func (a *answered) sawUnknown() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.unknown
}

// wentAwayOnLargeToken reports the token of the first write the receiver
// did not answer and the largest it answered, when the first is above
// both the largest and what a 32-bit signed integer holds, and the
// largest is a domain the battery can play in: the receiver most likely
// cannot take tokens that large (etcd's contrib/lock/storage example
// exits on a token above 2^63-1). A lease issuer's tokens stay far below
// 2^31, so their unanswered writes suggest nothing.
func (a *answered) wentAwayOnLargeToken() (on, largest uint64, ok bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	ok = a.hasFirst && a.first > a.largest && a.first > math.MaxInt32 && a.largest >= MinMaxToken
	return a.first, a.largest, ok
}
