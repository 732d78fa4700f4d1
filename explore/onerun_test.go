package explore_test

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/explore"
	"github.com/fencecheck/fencecheck/targets"
	"github.com/fencecheck/fencecheck/targets/httptarget/receiver"
	"github.com/fencecheck/fencecheck/targets/memory"
)

// TestOneDefaultRunFindsTheRace measures, for receivers with a
// check-then-write race, how many of seeds 1-N one default run finds
// (N is FENCECHECK_ONE_RUN_SEEDS, default 20), with the workers'
// contention bursts and without (--burst 0, the default run before
// them): the memory receivers whose race is taken by one write in 100
// and in 25, in the deterministic simulation, and the reference
// receiver's check-then-set in a synctest bubble (its default 5 s). It
// runs only when FENCECHECK_ONE_RUN_SEEDS is set, and logs the figures
// docs/exploration.md quotes:
//
//	FENCECHECK_ONE_RUN_SEEDS=20 go test ./explore -run TestOneDefaultRunFindsTheRace -v
func TestOneDefaultRunFindsTheRace(t *testing.T) {
	if os.Getenv("FENCECHECK_ONE_RUN_SEEDS") == "" {
		t.Skip("set FENCECHECK_ONE_RUN_SEEDS=20 to measure")
	}
	n := envInt(t, "FENCECHECK_ONE_RUN_SEEDS", 20)
	store := schema.TempDir(t)
	oneIn := func(odds uint64) func() (targets.Target, error) {
		return func() (targets.Target, error) { return memory.NewCheckThenSetOneIn(odds), nil }
	}
	receivers := []ttdReceiver{
		{name: "memory://check-then-set-rare (one write in 100)", newTarget: memoryReceiver("check-then-set-rare")},
		{name: "check-then-set, one write in 25 (memory)", newTarget: oneIn(25)},
		{name: "reference --bug check-then-set (bubble, 5s)", newTarget: referenceReceiver(receiver.CheckThenSet), bubble: true},
	}
	for _, r := range receivers {
		var line string
		for _, bursts := range []bool{false, true} {
			s := ttdStrategies[0]
			if !bursts {
				s = ttdStrategies[1]
			}
			res := ttdSweep(t, r, s, store, explore.Seeds{First: 1, Last: uint64(n)}, true)
			line += fmt.Sprintf("; bursts %v: %d of %d violated (%s)", bursts, res.Violated, res.Runs, res.Elapsed.Round(time.Millisecond))
		}
		t.Logf("%s%s", r.name, line)
	}
}
