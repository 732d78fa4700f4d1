package check_test

import (
	"encoding/binary"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/fencecheck/fencecheck/check"
	"github.com/fencecheck/fencecheck/explain"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/internal/testsupport/histgen"
	"github.com/fencecheck/fencecheck/model"
)

// The differential test is the judge of the fast checker: on small random
// histories porcupine explores every order, so any disagreement is a bug in
// one of the two (so far, always in the fast one).
//
//	go test ./check -run TestFastDifferential -diff.cases=100000
//
// runs the dedicated campaign; FENCECHECK_DIFF_CASES does the same without
// a flag. Every go test runs a bounded number of cases.
var (
	diffCases = flag.Int("diff.cases", 0, "number of random histories TestFastDifferential compares (default 3000, 500 with -short)")
	diffSeed  = flag.Uint64("diff.seed", 1, "seed of TestFastDifferential's histories")
)

func differentialCases() int {
	if s := os.Getenv("FENCECHECK_DIFF_CASES"); s != "" && *diffCases == 0 {
		if n, err := strconv.Atoi(s); err == nil && n > 0 {
			return n
		}
	}
	return histgen.CaseCount(*diffCases, 3000, 500, testing.Short())
}

// diffCase makes one small history, valid by construction and then
// nine times in ten corrupted in one to three places (a corruption often
// leaves the history legal, so roughly half the cases end up invalid); and
// a policy. A history from a receiver that accepts repeats of the current
// token (always, or sometimes) is judged under accept-equal seven times in
// eight; one from a strict receiver under strict or accept-equal alike,
// because accept-equal allows a repeat to be rejected too and the checkers
// must agree that a strict receiver holds under it.
func diffCase(r *rand.Rand) ([]histories.Operation, check.Options) {
	cfg := histgen.Small(r)
	ops := histgen.Generate(r, cfg)
	if r.IntN(10) != 0 {
		histgen.Corrupt(r, ops, 1+r.IntN(3))
	}
	return ops, check.Options{Kind: model.KindFenced, Policy: policyFor(r, cfg)}
}

// policyFor picks the policy a generated history is judged under (see
// diffCase).
func policyFor(r *rand.Rand, cfg histgen.Config) model.Policy {
	if histgen.JudgeAcceptEqual(r, cfg) {
		return model.AcceptEqual
	}
	return model.Strict
}

// compare returns a description of the disagreement, or "".
func compare(ops []histories.Operation, opts check.Options) (check.Verdict, string) {
	ref := check.PorcupineForTest(ops, opts)
	got, err := fast(ops, opts)
	switch {
	case err != nil:
		return ref.Verdict, fmt.Sprintf("fast checker: %v", err)
	case got.Verdict != ref.Verdict:
		return ref.Verdict, fmt.Sprintf("fast says %s, porcupine says %s (%s policy)%s\n%s",
			got.Verdict, ref.Verdict, opts.Policy, describeViolations(got), histgen.Describe(ops))
	case got.Verdict == check.Violated && len(got.Violations) != len(ref.Blames):
		return ref.Verdict, fmt.Sprintf("fast finds %d violating resources, porcupine %d\n%s", len(got.Violations), len(ref.Blames), histgen.Describe(ops))
	case got.CappedWrites != ref.CappedWrites || got.DroppedWrite != ref.DroppedWrite || got.Resources != ref.Resources:
		return ref.Verdict, fmt.Sprintf("fast capped %d, dropped %d of %d resources; Prepare %d, %d of %d\n%s",
			got.CappedWrites, got.DroppedWrite, got.Resources, ref.CappedWrites, ref.DroppedWrite, ref.Resources, histgen.Describe(ops))
	}
	for _, v := range got.Violations {
		if v.Summary == "" || len(v.Steps) == 0 {
			return ref.Verdict, fmt.Sprintf("violation of %q without summary or steps: %+v", v.Resource, v)
		}
	}
	return ref.Verdict, ""
}

func describeViolations(res explain.Result) string {
	var b strings.Builder
	for _, v := range res.Violations {
		fmt.Fprintf(&b, "\n  fast: %s: %s", v.Resource, v.Summary)
	}
	return b.String()
}

// eachCase calls fn with 0 … n-1 on GOMAXPROCS goroutines, until fn has
// reported three failures (it returns whether case i failed), and returns
// how many it reported.
func eachCase(n int, fn func(i uint64) bool) int32 {
	var next atomic.Int64
	var failures atomic.Int32
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1) - 1
				if i >= int64(n) || failures.Load() >= 3 {
					return
				}
				if fn(uint64(i)) {
					failures.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	return failures.Load()
}

func TestFastDifferential(t *testing.T) {
	t.Parallel()
	n, seed := differentialCases(), *diffSeed
	var violated atomic.Int64
	var repeats repeatTally
	failures := eachCase(n, func(i uint64) bool {
		ops, opts := diffCase(rand.New(rand.NewPCG(seed, i)))
		verdict, diff := compare(ops, opts)
		if verdict == check.Violated {
			violated.Add(1)
		}
		if opts.Policy == model.AcceptEqual {
			repeats.add(ops, verdict)
		}
		if diff != "" {
			t.Errorf("case %d (-diff.seed=%d): %s", i, seed, diff)
		}
		return diff != ""
	})
	share := float64(violated.Load()) / float64(n)
	t.Logf("%d cases, seed %d: %d disagreements; porcupine found %.1f%% violated", n, seed, failures, 100*share)
	if n >= 500 && (share < 0.25 || share > 0.75) {
		t.Errorf("generator is lopsided: %.1f%% of cases violated, want roughly half", 100*share)
	}
	t.Logf("judged under accept-equal, with unknown writes: %s", repeats.String())
	if n >= 500 {
		repeats.require(t)
	}
}

// repeatTally counts the cases judged under accept-equal that have writes
// of unknown outcome, by how the history answered repeats of a token (see
// repeatAnswers) and by verdict: accept-equal allows either answer to a
// repeat, and the generator must produce both, alone and mixed, in valid
// and invalid histories alike.
type repeatTally struct {
	counts [3][2]atomic.Int64 // [rejected only, accepted only, both][held, violated]
}

var repeatKinds = [3]string{"repeats rejected", "repeats accepted", "repeats both rejected and accepted"}

func (c *repeatTally) add(ops []histories.Operation, verdict check.Verdict) {
	if !slices.ContainsFunc(ops, func(o histories.Operation) bool { return o.IsWrite() && o.Status == histories.StatusUnknown }) {
		return
	}
	rejected, accepted := repeatAnswers(ops)
	kind := 0
	switch {
	case rejected && accepted:
		kind = 2
	case accepted:
		kind = 1
	case !rejected:
		return
	}
	v := 0
	if verdict == check.Violated {
		v = 1
	}
	c.counts[kind][v].Add(1)
}

func (c *repeatTally) String() string {
	var parts []string
	for k, name := range repeatKinds {
		parts = append(parts, fmt.Sprintf("%s %d held / %d violated", name, c.counts[k][0].Load(), c.counts[k][1].Load()))
	}
	return strings.Join(parts, "; ")
}

func (c *repeatTally) require(t *testing.T) {
	t.Helper()
	for k, name := range repeatKinds {
		for v, verdict := range []string{"held", "violated"} {
			if c.counts[k][v].Load() == 0 {
				t.Errorf("no %s case with unknown writes, judged under accept-equal, with %s", verdict, name)
			}
		}
	}
}

// repeatAnswers reports whether some write with a token above 0 was
// rejected although another write of the same token on its resource was
// accepted or has an unknown outcome (a rejected repeat, if that one took
// effect first), and whether two writes of one token on a resource were
// both accepted (an accepted repeat).
func repeatAnswers(ops []histories.Operation) (rejected, accepted bool) {
	type key struct {
		resource string
		token    uint64
	}
	applied, acc, rej := map[key]int{}, map[key]int{}, map[key]int{}
	for i := range ops {
		o := &ops[i]
		if !o.IsWrite() {
			continue
		}
		k := key{o.Resource, o.Token}
		switch o.Status {
		case histories.StatusAccepted:
			acc[k]++
			applied[k]++
		case histories.StatusUnknown:
			applied[k]++
		case histories.StatusRejected:
			if o.Token > 0 {
				rej[k]++
			}
		}
	}
	for k := range rej {
		rejected = rejected || applied[k] > 0
	}
	for _, n := range acc {
		accepted = accepted || n > 1
	}
	return rejected, accepted
}

// byteSource feeds the generator from fuzz input, 8 bytes per number, so
// that mutations of the input change the history locally; past the end it
// continues with a generator seeded by the input's length.
type byteSource struct {
	data []byte
	rest *rand.PCG
}

func (s *byteSource) Uint64() uint64 {
	if len(s.data) == 0 {
		return s.rest.Uint64()
	}
	var buf [8]byte
	n := copy(buf[:], s.data)
	s.data = s.data[n:]
	return binary.LittleEndian.Uint64(buf[:])
}

func FuzzFastMatchesPorcupine(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("seed's stale write"))
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x80, 0x40, 0x20, 0x10, 0x08, 0x04, 0x02, 0x01})
	f.Fuzz(func(t *testing.T, data []byte) {
		src := &byteSource{data: data, rest: rand.NewPCG(uint64(len(data)), 0x5eed)}
		ops, opts := diffCase(rand.New(src))
		if _, diff := compare(ops, opts); diff != "" {
			t.Fatal(diff)
		}
	})
}
