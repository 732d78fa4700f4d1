package check_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/anishathalye/porcupine"

	"github.com/fencecheck/fencecheck/check"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/internal/testsupport/histgen"
	"github.com/fencecheck/fencecheck/model"
)

// nestTally counts the histories of TestPoliciesNest by their verdicts:
// [held under strict][held under accept-equal], and the same for those
// with writes of unknown outcome.
type nestTally struct {
	all, unknown [2][2]atomic.Int64
}

func (c *nestTally) add(strictHeld, acceptEqualHeld, hasUnknown bool) {
	s, a := b2i(strictHeld), b2i(acceptEqualHeld)
	c.all[s][a].Add(1)
	if hasUnknown {
		c.unknown[s][a].Add(1)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// nestVerdict judges ops under p three ways, which must agree: porcupine
// and the fast checker on the capped history (what fencecheck runs), and
// porcupine on the history without the fencing cap, so that the cap, which
// both checkers share, is checked against the model alone too. It returns
// whether the history held, or a description of the disagreement.
func nestVerdict(ops []histories.Operation, p model.Policy) (bool, string) {
	opts := check.Options{Kind: model.KindFenced, Policy: p}
	ref := check.PorcupineForTest(ops, opts)
	fast, err := check.FastForTest(ops, opts)
	if err != nil {
		return false, fmt.Sprintf("fast checker: %v", err)
	}
	// Failed operations and unknown reads are what Prepare leaves out.
	kept := slices.DeleteFunc(slices.Clone(ops), func(o histories.Operation) bool {
		return o.Status == histories.StatusFailed || !o.IsWrite() && o.Status == histories.StatusUnknown
	})
	uncapped := porcupine.CheckOperations(model.Porcupine(opts.Kind, opts.Policy), model.ToPorcupine(kept))
	held := ref.Verdict == check.Held
	if fast.Verdict != ref.Verdict || uncapped != held {
		return held, fmt.Sprintf("%s policy: porcupine says %s, fast %s, porcupine without the fencing cap legal=%v",
			p, ref.Verdict, fast.Verdict, uncapped)
	}
	return held, ""
}

// TestPoliciesNest: every history legal under strict is legal under
// accept-equal, by porcupine and by the fast checker, over the
// differential test's generator (receivers that reject repeats of the
// current token, accept them, or mix both; nine in ten corrupted; unknown
// outcomes). The converse must fail for some histories (a repeat
// accepted), and there must be histories held and violated under both, so
// that the test cannot pass vacuously.
func TestPoliciesNest(t *testing.T) {
	t.Parallel()
	n := histgen.CaseCount(0, 5000, 1000, testing.Short())
	seed := *diffSeed
	var tally nestTally
	eachCase(n, func(i uint64) bool {
		r := rand.New(rand.NewPCG(seed, 1<<32|i))
		ops := histgen.Generate(r, histgen.Small(r))
		if r.IntN(10) != 0 {
			histgen.Corrupt(r, ops, 1+r.IntN(3))
		}
		strict, d1 := nestVerdict(ops, model.Strict)
		acceptEqual, d2 := nestVerdict(ops, model.AcceptEqual)
		tally.add(strict, acceptEqual, slices.ContainsFunc(ops, func(o histories.Operation) bool {
			return o.IsWrite() && o.Status == histories.StatusUnknown
		}))
		var problem string
		switch {
		case d1 != "" || d2 != "":
			problem = "the checkers disagree: " + d1 + d2
		case strict && !acceptEqual:
			problem = "held under strict, violated under accept-equal"
		default:
			return false
		}
		t.Errorf("case %d (-diff.seed=%d): %s\n%s", i, seed, problem, histgen.Describe(ops))
		return true
	})
	both, aeOnly, neither, strictOnly := &tally.all[1][1], &tally.all[0][1], &tally.all[0][0], &tally.all[1][0]
	t.Logf("%d histories, seed %d: held under both %d (%d with unknown writes), under accept-equal only %d (%d), under neither %d (%d), under strict only %d",
		n, seed, both.Load(), tally.unknown[1][1].Load(), aeOnly.Load(), tally.unknown[0][1].Load(),
		neither.Load(), tally.unknown[0][0].Load(), strictOnly.Load())
	for _, c := range []struct {
		name  string
		count int64
	}{
		{"held under both policies", tally.unknown[1][1].Load()},
		{"held under accept-equal only", tally.unknown[0][1].Load()},
		{"violated under both policies", tally.unknown[0][0].Load()},
	} {
		if c.count == 0 {
			t.Errorf("no history with unknown writes %s: the test would pass vacuously", c.name)
		}
	}
}
