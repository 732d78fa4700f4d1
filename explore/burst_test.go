package explore_test

import (
	"testing"
	"time"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/explore"
	"github.com/fencecheck/fencecheck/harness"
	"github.com/fencecheck/fencecheck/targets/httptarget/receiver"
)

// Contention bursts (workload.Burst, on by default) send writes with
// adjacent tokens to one resource at once, in whatever order the seed
// gives: a correct receiver rejects each one that arrives after a higher
// token, and no seed fails it. Both correct receivers are swept, with
// bursts at their default and at five times their default share; the
// broken twin with a check-then-set race is swept beside them, so that
// the bursts are known to reach a receiver's decision window here.
func TestBurstsKeepTheCorrectReceiversHeld(t *testing.T) {
	if !harness.DefaultConfig().Workload.Burst.On() {
		t.Fatal("contention bursts are off by default")
	}
	store := schema.TempDir(t)
	random := ttdStrategies[0]
	often := func(c *harness.Config) { c.Workload.Burst.Share = 0.5 }
	short := func(c *harness.Config) {
		c.Workload.Duration = 2 * time.Second
		often(c)
	}
	for _, tc := range []struct {
		r     ttdReceiver
		seeds uint64
	}{
		{ttdReceiver{name: "memory://fenced", newTarget: memoryReceiver("fenced")}, 50},
		{ttdReceiver{name: "memory://fenced", newTarget: memoryReceiver("fenced"), set: often}, 50},
		{ttdReceiver{name: "reference (no bug)", newTarget: referenceReceiver(receiver.NoBug), bubble: true, set: short}, 10},
	} {
		res := ttdSweep(t, tc.r, random, store, explore.Seeds{First: 1, Last: tc.seeds})
		if res.Violated > 0 || res.Runs != int(tc.seeds) {
			t.Errorf("%s: %d of %d seeds violated, %d ran: %s", tc.r.name, res.Violated, tc.seeds, res.Runs, res.Reason)
		}
	}
	broken := ttdReceiver{name: "reference --bug check-then-set", newTarget: referenceReceiver(receiver.CheckThenSet), bubble: true, set: short}
	if res := ttdSweep(t, broken, random, store, explore.Seeds{First: 1, Last: 3}); res.Violated == 0 {
		t.Errorf("%s: no seed of 3 violated: %s", broken.name, res.Reason)
	}
}
