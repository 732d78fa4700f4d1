package receiver

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Bug is a deliberate defect, for demonstrating what fencecheck finds and
// for testing its detection. The zero Bug is the correct receiver.
type Bug uint8

// The bug modes.
const (
	// NoBug compares and writes in one atomic step (Store.CompareAndPut).
	NoBug Bug = iota
	// Unfenced ignores tokens: the last write wins.
	Unfenced
	// CheckThenSet reads the stored token, waits a moment (the window in
	// which another write can pass the same check), then writes
	// unconditionally: two steps where one is needed.
	CheckThenSet
	// AcceptEqual also accepts a repeat of the current token: correct
	// under the accept-equal policy, a violation under strict.
	AcceptEqual
	// ForgetOnRestart keeps the highest token in memory only (values are
	// still stored): after a restart it accepts any token until a newer
	// one arrives, so a stale write that crosses the restart wins.
	ForgetOnRestart
	// FloatTokens compares tokens as float64, as a JavaScript receiver
	// does: above 2^53 consecutive tokens compare equal (2^53+1 is 2^53),
	// so a newer write is rejected. It is correct below 2^53, where every
	// dense run stays: run --tokens sparse finds it.
	FloatTokens
	// StringTokens compares tokens as decimal strings: "10" < "9", so
	// the owner of 10 is rejected after 9.
	StringTokens
	// LoseAcknowledged fences correctly but answers every 50th write it
	// accepts on a resource as applied without storing it (lose.go).
	LoseAcknowledged
)

// BugNames lists the modes by their --bug names.
func BugNames() []string {
	return []string{"unfenced", "check-then-set", "accept-equal", "forget-on-restart", "float-tokens", "string-tokens", "lose-acknowledged"}
}

// ParseBug parses a --bug name; "" and "none" are the correct receiver.
func ParseBug(s string) (Bug, error) {
	switch s {
	case "", "none":
		return NoBug, nil
	case "unfenced":
		return Unfenced, nil
	case "check-then-set":
		return CheckThenSet, nil
	case "accept-equal":
		return AcceptEqual, nil
	case "forget-on-restart":
		return ForgetOnRestart, nil
	case "float-tokens":
		return FloatTokens, nil
	case "string-tokens":
		return StringTokens, nil
	case "lose-acknowledged":
		return LoseAcknowledged, nil
	}
	return NoBug, fmt.Errorf("unknown bug %q (want one of %s)", s, strings.Join(BugNames(), ", "))
}

func (b Bug) String() string {
	if b == NoBug {
		return "none"
	}
	return BugNames()[b-1]
}

// writer applies a write the way a mode does; it returns whether the
// write was applied and the token the resource holds afterwards.
type writer func(ctx context.Context, resource string, c Cell) (bool, uint64, error)

func (b Bug) writer(s Store, window time.Duration) writer {
	switch b {
	case Unfenced:
		return func(ctx context.Context, res string, c Cell) (bool, uint64, error) {
			return s.CompareAndPut(ctx, res, c, Always)
		}
	case AcceptEqual:
		return func(ctx context.Context, res string, c Cell) (bool, uint64, error) {
			return s.CompareAndPut(ctx, res, c, GreaterOrEqual)
		}
	case CheckThenSet:
		return checkThenSet(s, window)
	case ForgetOnRestart:
		return forgetful(s)
	case FloatTokens:
		return comparedAs(s, func(stored, token uint64) bool { return float64(token) > float64(stored) })
	case StringTokens:
		return comparedAs(s, func(stored, token uint64) bool {
			return strconv.FormatUint(token, 10) > strconv.FormatUint(stored, 10)
		})
	case LoseAcknowledged:
		return loseAcknowledged(s)
	}
	return func(ctx context.Context, res string, c Cell) (bool, uint64, error) {
		return s.CompareAndPut(ctx, res, c, Greater)
	}
}

func checkThenSet(s Store, window time.Duration) writer {
	return func(ctx context.Context, res string, c Cell) (bool, uint64, error) {
		cur, _, err := s.Get(ctx, res)
		if err != nil || c.Token <= cur.Token {
			return false, cur.Token, err
		}
		time.Sleep(window) // another write can pass the same check now
		return true, c.Token, s.Put(ctx, res, c)
	}
}

// comparedAs compares and writes in one step, under a lock, as a correct
// receiver does, but with greater instead of the integers' order: the
// only defect is the comparison.
func comparedAs(s Store, greater func(stored, token uint64) bool) writer {
	var mu sync.Mutex
	return func(ctx context.Context, res string, c Cell) (bool, uint64, error) {
		mu.Lock()
		defer mu.Unlock()
		cur, found, err := s.Get(ctx, res)
		if err != nil {
			return false, 0, err
		}
		if found && !greater(cur.Token, c.Token) {
			return false, cur.Token, nil
		}
		if err := s.Put(ctx, res, c); err != nil {
			return false, 0, err
		}
		return true, c.Token, nil
	}
}

func forgetful(s Store) writer {
	var mu sync.Mutex
	fence := make(map[string]uint64) // lost with the process
	return func(ctx context.Context, res string, c Cell) (bool, uint64, error) {
		mu.Lock()
		defer mu.Unlock()
		if c.Token <= fence[res] {
			return false, fence[res], nil
		}
		if err := s.Put(ctx, res, c); err != nil {
			return false, 0, err
		}
		fence[res] = c.Token
		return true, c.Token, nil
	}
}
