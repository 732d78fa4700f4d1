package explain_test

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fencecheck/fencecheck/check"
	"github.com/fencecheck/fencecheck/explain"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/internal/testsupport/histgen"
	"github.com/fencecheck/fencecheck/model"
)

// The explanation property: a minimal counterexample is a counterexample
// of the history the user recorded, and everything its explanation claims
// is true of that history. Over random invalid histories from the
// differential generator (both policies, unknown outcomes, failed writes
// whose values are read, state from before the run, wrong rejections),
// each is checked, its first violation shrunk, and the result judged by
// code of this file alone, not by the claim logic of the package: every
// step is an operation of the history as recorded, every claim holds in
// it (by brute force), the minimal history is invalid and stays invalid
// with every write that may have taken effect added back (by porcupine),
// and its rule and culprit are the original's. The claims of every
// violation the check reported are judged the same way.
//
//	go test ./explain -run TestExplanationsAreTrueOfTheOriginal -explain.cases=10000
//
// runs the campaign with the number of cases given (10,000 by default,
// 2,000 with -short; a few seconds with -race).
var (
	explainCases = flag.Int("explain.cases", 0, "number of invalid histories TestExplanationsAreTrueOfTheOriginal judges (default 10000, 2000 with -short)")
	explainSeed  = flag.Uint64("explain.seed", 1, "seed of TestExplanationsAreTrueOfTheOriginal's histories")
)

func explanationCases() int { return histgen.CaseCount(*explainCases, 10_000, 2000, testing.Short()) }

// explainCase is diffCase with more of what explanations get wrong: a
// resource's state before the run a third of the time, and failed writes
// (whose values the corruption makes reads return) in half the cases.
func explainCase(r *rand.Rand) ([]histories.Operation, check.Options) {
	cfg := histgen.Small(r)
	if r.IntN(3) == 0 {
		cfg.Initial = 0.5
	}
	if r.IntN(2) == 0 {
		cfg.Failed = max(cfg.Failed, 0.15)
	}
	ops := histgen.Generate(r, cfg)
	histgen.Corrupt(r, ops, 1+r.IntN(3))
	return ops, check.Options{Kind: model.KindFenced, Policy: policyFor(r, cfg)}
}

// tally counts what the campaign saw.
type tally struct {
	mu         sync.Mutex
	histories  int
	rules      map[string]int // of the minimal counterexamples
	claims     int
	falseOnes  int // false claims
	otherBad   int // other properties that did not hold
	adopted    int
	notShrunk  int
	failed     int // histories with a failed write whose value a read returned
	initial    int // histories with state from before the run
	rejections int // minimal counterexamples of wrong rejections
}

func (t *tally) add(fn func(*tally)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	fn(t)
}

func TestExplanationsAreTrueOfTheOriginal(t *testing.T) {
	t.Parallel()
	want, seed := explanationCases(), *explainSeed
	tl := &tally{rules: make(map[string]int)}
	var next, found atomic.Int64
	var problems atomic.Int32
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for found.Load() < int64(want) && problems.Load() < 5 {
				i := next.Add(1) - 1
				ops, opts := explainCase(rand.New(rand.NewPCG(seed, uint64(i))))
				res, err := explain.CheckFast(ops, opts)
				if err != nil {
					res = explain.CheckPorcupine(ops, opts)
				}
				if res.Verdict != check.Violated {
					continue
				}
				if found.Add(1) > int64(want) {
					return
				}
				if msg := judgeCase(ops, res, opts, tl); msg != "" {
					problems.Add(1)
					t.Errorf("case %d (-explain.seed=%d, %s policy): %s\n%s", i, seed, opts.Policy, msg, histgen.Describe(ops))
				}
			}
		}()
	}
	wg.Wait()
	var rules []string
	for _, r := range slices.Sorted(maps.Keys(tl.rules)) {
		rules = append(rules, fmt.Sprintf("%s %d", r, tl.rules[r]))
	}
	t.Logf("%d invalid histories (seed %d; %d with a failed write's value read, %d with state before the run): minimal counterexamples by rule: %s; %d adopted Explain's account, %d not shrunk",
		tl.histories, seed, tl.failed, tl.initial, strings.Join(rules, ", "), tl.adopted, tl.notShrunk)
	t.Logf("%d false claims over %d histories (%d claims checked); %d other properties failed", tl.falseOnes, tl.histories, tl.claims, tl.otherBad)
	if tl.histories < want && problems.Load() == 0 {
		t.Errorf("only %d invalid histories, want %d", tl.histories, want)
	}
	if want >= 300 {
		for _, r := range []string{explain.RuleStaleAccepted, explain.RuleWrongRejection, explain.RuleReadOrigin, explain.RuleStaleRead} {
			if tl.rules[r] == 0 {
				t.Errorf("no minimal counterexample of rule %s: the generator misses a kind", r)
			}
		}
		if tl.failed == 0 || tl.initial == 0 {
			t.Errorf("%d histories with a failed write's value read, %d with state before the run: want some of each", tl.failed, tl.initial)
		}
	}
}

// judgeCase shrinks the first violation of an invalid history and returns
// what is wrong with the result, or "".
func judgeCase(ops []histories.Operation, res explain.Result, opts check.Options, tl *tally) string {
	first := res.Violations[res.First()]
	var problems []string
	claims, bad, other := 0, 0, 0
	for _, v := range res.Violations {
		n, errs := judgeClaims(ops, v, opts)
		claims += n
		bad += len(errs)
		for _, e := range errs {
			problems = append(problems, fmt.Sprintf("the check's violation on %s (%s): %s", v.Resource, v.Summary, e))
		}
	}
	so := explain.DefaultShrinkOptions()
	so.Timeout = time.Minute
	s, ok, err := explain.Shrink(context.Background(), ops, nil, first, opts, so)
	if err != nil {
		problems = append(problems, fmt.Sprintf("shrink the first cause: %v", err))
	}
	if ok {
		n, falseClaims, errs := judgeShrunk(ops, first, &s, opts)
		claims += n
		bad += len(falseClaims)
		other += len(errs)
		for _, e := range append(falseClaims, errs...) {
			problems = append(problems, fmt.Sprintf("minimal counterexample (%s): %s", s.Violation.Summary, e))
		}
	}
	tl.add(func(t *tally) {
		t.histories++
		t.claims += claims
		t.falseOnes += bad
		t.otherBad += other
		if !ok {
			t.notShrunk++
			return
		}
		t.rules[s.Violation.Rule]++
		if s.Adopted {
			t.adopted++
		}
		if s.Violation.Rule == explain.RuleWrongRejection {
			t.rejections++
		}
		if readsFailedValue(ops) {
			t.failed++
		}
		if slices.ContainsFunc(ops, func(o histories.Operation) bool { return o.Initial }) {
			t.initial++
		}
	})
	if !ok {
		problems = append(problems, "the first violation did not shrink: "+first.Summary)
	}
	return strings.Join(problems, "\n")
}

// judgeShrunk checks a minimal counterexample against the history it
// came from.
// It returns the number of claims checked, the false ones, and the
// other properties that do not hold.
func judgeShrunk(ops []histories.Operation, first explain.Violation, s *explain.Shrunk, opts check.Options) (int, []string, []string) {
	var errs []string
	inS := make(map[int]bool)
	for _, op := range s.Ops {
		inS[op.ID] = true
		if op.ID < 0 || op.ID >= len(ops) || !reflect.DeepEqual(op, ops[op.ID]) {
			errs = append(errs, fmt.Sprintf("operation #%d is not the history's as recorded", op.ID))
		}
	}
	for _, st := range s.Violation.Steps {
		o := &ops[st.OpID]
		if !inS[st.OpID] || st.Call != o.Call || st.Return != o.Return || st.Process != o.Process {
			errs = append(errs, fmt.Sprintf("step of #%d is not an operation of the counterexample as recorded", st.OpID))
		}
	}
	n, claimErrs := judgeClaims(ops, s.Violation, opts)
	for _, c := range s.Violation.Claims {
		for _, x := range append([]int{c.Op, c.Other}, c.Ops...) {
			if x >= 0 && !inS[x] {
				errs = append(errs, fmt.Sprintf("claim %s names #%d, which the counterexample leaves out", c.Kind, x))
			}
		}
	}
	if explain.CheckPorcupine(s.Ops, opts).Verdict != check.Violated {
		errs = append(errs, "the minimal history is valid")
	}
	union := slices.Clone(s.Ops)
	for _, op := range ops {
		if op.Resource == s.Resource && op.IsWrite() && (op.Status == histories.StatusAccepted || op.Status == histories.StatusUnknown) && !inS[op.ID] {
			union = append(union, op)
		}
	}
	slices.SortFunc(union, func(a, b histories.Operation) int { return a.ID - b.ID })
	if explain.CheckPorcupine(union, opts).Verdict != check.Violated {
		errs = append(errs, "the minimal history with every write that may have taken effect added back is valid")
	}
	if !s.Adopted && (s.Violation.Rule != first.Rule || culprit(s.Violation) != culprit(first)) {
		errs = append(errs, fmt.Sprintf("rule %s, culprit #%d; the original's are %s, #%d (%s)",
			s.Violation.Rule, culprit(s.Violation), first.Rule, culprit(first), first.Summary))
	}
	return n, claimErrs, errs
}

func culprit(v explain.Violation) int {
	for _, st := range v.Steps {
		if st.Culprit {
			return st.OpID
		}
	}
	return -1
}

// readsFailedValue reports whether a read returned the value of a failed
// write.
func readsFailedValue(ops []histories.Operation) bool {
	failed := make(map[string]bool)
	for _, o := range ops {
		if o.IsWrite() && o.Status == histories.StatusFailed {
			failed[o.Resource+"\x00"+o.Value] = true
		}
	}
	return slices.ContainsFunc(ops, func(o histories.Operation) bool {
		return !o.IsWrite() && o.HasValue && failed[o.Resource+"\x00"+o.Value]
	})
}

// judgeClaims checks each claim of v by brute force over the original
// history of v's resource, with the model's rules written out here.
func judgeClaims(all []histories.Operation, v explain.Violation, opts check.Options) (int, []string) {
	var ops []histories.Operation
	for _, o := range all {
		if o.Resource == v.Resource {
			ops = append(ops, o)
		}
	}
	byID := make(map[int]*histories.Operation)
	for i := range ops {
		byID[ops[i].ID] = &ops[i]
	}
	mayAccept := func(p string, highest, token uint64) bool {
		if p == "accept-equal" {
			return token >= highest
		}
		return token > highest
	}
	mayReject := func(highest, token uint64) bool { return token <= highest }
	mayHaveApplied := func(o *histories.Operation) bool {
		return o.IsWrite() && (o.Status == histories.StatusAccepted || o.Status == histories.StatusUnknown)
	}
	var errs []string
	for _, c := range v.Claims {
		a, b := byID[c.Op], byID[c.Other]
		ok := true
		switch c.Kind {
		case explain.ClaimRecorded:
			ok = a != nil && c.Record != nil && *c.Record == (explain.Record{F: a.F, Status: a.Status.String(), Token: a.Token, HasToken: a.HasToken,
				Value: a.Value, HasValue: a.HasValue, Call: a.Call, Return: a.Return, Initial: a.Initial})
		case explain.ClaimReturnedBefore:
			ok = a != nil && b != nil && a.Return != histories.Infinity && a.Return < b.Call
		case explain.ClaimBars:
			ok = a != nil && b != nil && !mayAccept(c.Policy, a.Token, b.Token)
		case explain.ClaimNeverAcceptable:
			ok = a != nil && !mayAccept(c.Policy, 0, a.Token)
		case explain.ClaimDoesNotJustify:
			ok = a != nil && b != nil && !mayReject(a.Token, b.Token)
		case explain.ClaimUnjustified:
			ok = a != nil && a.Status == histories.StatusRejected
			var top *histories.Operation
			for i := range ops {
				w := &ops[i]
				if !mayHaveApplied(w) || w.Call > a.Return {
					continue
				}
				ok = ok && !mayReject(w.Token, a.Token)
				if top == nil || w.Token > top.Token {
					top = w
				}
			}
			ok = ok && (top == nil && c.Other == -1 || top != nil && b != nil && mayHaveApplied(b) && b.Call <= a.Return && b.Token == top.Token)
			ok = ok && a.Token > 0
		case explain.ClaimEarliestJustifier:
			ok = a != nil && b != nil && mayHaveApplied(b) && mayReject(b.Token, a.Token)
			for i := range ops {
				if w := &ops[i]; mayHaveApplied(w) && mayReject(w.Token, a.Token) && w.Call < b.Call {
					ok = false
				}
			}
		case explain.ClaimWrittenBy:
			var got []int
			for _, o := range ops {
				if o.IsWrite() && o.Value == c.Value {
					got = append(got, o.ID)
				}
			}
			ok = slices.Equal(got, slices.Sorted(slices.Values(c.Ops)))
		case explain.ClaimHoldsUnder:
			p := model.Strict
			if c.Policy == "accept-equal" {
				p = model.AcceptEqual
			}
			ok = explain.CheckPorcupine(ops, check.Options{Kind: opts.Kind, Policy: p}).Verdict == check.Held
		default:
			ok = false
		}
		if !ok {
			errs = append(errs, fmt.Sprintf("false claim %+v", c))
		}
	}
	return len(v.Claims), errs
}

// policyFor picks the policy a generated history is judged under.
func policyFor(r *rand.Rand, cfg histgen.Config) model.Policy {
	if histgen.JudgeAcceptEqual(r, cfg) {
		return model.AcceptEqual
	}
	return model.Strict
}
