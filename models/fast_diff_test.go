package models_test

import (
	"encoding/binary"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/models"
	"github.com/fencecheck/fencecheck/models/internal/histgen"
)

// The differential test is the judge of CheckFast: on small random
// histories porcupine explores every order, so any disagreement is a bug in
// one of the two (so far, always in the fast one).
//
//	go test ./models -run TestFastDifferential -diff.cases=100000
//
// runs the dedicated campaign; FENCECHECK_DIFF_CASES does the same without
// a flag. Every go test runs a bounded number of cases.
var (
	diffCases = flag.Int("diff.cases", 0, "number of random histories TestFastDifferential compares (default 3000, 500 with -short)")
	diffSeed  = flag.Uint64("diff.seed", 1, "seed of TestFastDifferential's histories")
)

func differentialCases() int {
	if *diffCases > 0 {
		return *diffCases
	}
	if s := os.Getenv("FENCECHECK_DIFF_CASES"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n > 0 {
			return n
		}
	}
	if testing.Short() {
		return 500
	}
	return 3000
}

// diffCase makes one small history, valid by construction and then
// nine times in ten corrupted in one to three places (a corruption often
// leaves the history legal, so roughly half the cases end up invalid); and a policy,
// usually the one it was made with.
func diffCase(r *rand.Rand) ([]histories.Operation, models.Options) {
	cfg := histgen.Small(r)
	ops := histgen.Generate(r, cfg)
	if r.IntN(10) != 0 {
		histgen.Corrupt(r, ops, 1+r.IntN(3))
	}
	policy := models.Strict
	if cfg.AcceptEqual != (r.IntN(8) == 0) {
		policy = models.AcceptEqual
	}
	return ops, models.Options{Kind: models.KindFenced, Policy: policy}
}

// compare returns a description of the disagreement, or "".
func compare(ops []histories.Operation, opts models.Options) (models.Verdict, string) {
	ref := models.CheckPorcupine(ops, opts)
	got, err := models.CheckFast(ops, opts)
	switch {
	case err != nil:
		return ref.Verdict, fmt.Sprintf("CheckFast: %v", err)
	case got.Verdict != ref.Verdict:
		return ref.Verdict, fmt.Sprintf("fast says %s, porcupine says %s (%s policy)%s\n%s",
			got.Verdict, ref.Verdict, opts.Policy, describeViolations(got), describeOps(ops))
	case got.Verdict == models.Violated && len(got.Violations) != len(ref.Violations):
		return ref.Verdict, fmt.Sprintf("fast finds %d violating resources, porcupine %d\n%s", len(got.Violations), len(ref.Violations), describeOps(ops))
	case got.CappedWrites != ref.CappedWrites || got.DroppedWrite != ref.DroppedWrite || got.Resources != ref.Resources:
		return ref.Verdict, fmt.Sprintf("fast capped %d, dropped %d of %d resources; Prepare %d, %d of %d\n%s",
			got.CappedWrites, got.DroppedWrite, got.Resources, ref.CappedWrites, ref.DroppedWrite, ref.Resources, describeOps(ops))
	}
	for _, v := range got.Violations {
		if v.Summary == "" || len(v.Steps) == 0 {
			return ref.Verdict, fmt.Sprintf("violation of %q without summary or steps: %+v", v.Resource, v)
		}
	}
	return ref.Verdict, ""
}

func describeViolations(res models.Result) string {
	var b strings.Builder
	for _, v := range res.Violations {
		fmt.Fprintf(&b, "\n  fast: %s: %s", v.Resource, v.Summary)
	}
	return b.String()
}

func describeOps(ops []histories.Operation) string {
	var b strings.Builder
	for i := range ops {
		o := &ops[i]
		ret := strconv.FormatInt(o.Return, 10)
		if o.Return == histories.Infinity {
			ret = "∞"
		}
		fmt.Fprintf(&b, "  #%d p%d %s [%d,%s] %s", o.ID, o.Process, o.Resource, o.Call, ret, o.F)
		if o.IsWrite() {
			fmt.Fprintf(&b, "(%d, %q) → %s\n", o.Token, o.Value, o.Status)
			continue
		}
		fmt.Fprintf(&b, " → %s value=%q/%v token=%d/%v\n", o.Status, o.Value, o.HasValue, o.Token, o.HasToken)
	}
	return b.String()
}

func TestFastDifferential(t *testing.T) {
	t.Parallel()
	n, seed := differentialCases(), *diffSeed
	var next, violated atomic.Int64
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
				ops, opts := diffCase(rand.New(rand.NewPCG(seed, uint64(i))))
				verdict, diff := compare(ops, opts)
				if verdict == models.Violated {
					violated.Add(1)
				}
				if diff != "" {
					failures.Add(1)
					t.Errorf("case %d (-diff.seed=%d): %s", i, seed, diff)
				}
			}
		}()
	}
	wg.Wait()
	share := float64(violated.Load()) / float64(n)
	t.Logf("%d cases, seed %d: %d disagreements; porcupine found %.1f%% violated", n, seed, failures.Load(), 100*share)
	if n >= 500 && (share < 0.25 || share > 0.75) {
		t.Errorf("generator is lopsided: %.1f%% of cases violated, want roughly half", 100*share)
	}
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
