package fencetest

import (
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/fencecheck/fencecheck/harness"
)

// testingT is a T that is not a *testing.T but wraps one, such as a fake
// that records what a run reports instead of failing the test: Synctest
// needs the *testing.T, which synctest.Test takes.
type testingT interface {
	TestingT() *testing.T
}

// bubbleTest returns the *testing.T that t is or wraps.
func bubbleTest(t T) (*testing.T, error) {
	switch v := t.(type) {
	case *testing.T:
		return v, nil
	case testingT:
		return v.TestingT(), nil
	}
	return nil, fmt.Errorf("a run with Synctest set runs in a testing/synctest bubble, which needs a *testing.T (or a T with a method TestingT() *testing.T); %T is neither", t)
}

// runInBubble runs cfg inside a synctest bubble: everything the run
// starts, the receiver's goroutines with it, is on the bubble's clock.
// It reports nothing to t from inside, where a Fatalf would end the
// bubble's goroutine and not the test's.
func runInBubble(t T, cfg harness.Config) (res harness.Result, err error) {
	tt, err := bubbleTest(t)
	if err != nil {
		return harness.Result{}, err
	}
	cfg.Runtime.VirtualClock = true
	if cfg.Runtime.Started.IsZero() {
		cfg.Runtime.Started = time.Now() // the bubble's clock starts at 2000-01-01
	}
	synctest.Test(tt, func(inner *testing.T) {
		// The bubble's own context: a wait on the test's, made outside
		// the bubble, would never let the bubble's clock move.
		res, err = harness.Run(inner.Context(), cfg)
	})
	return res, err
}
