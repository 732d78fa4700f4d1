package check_test

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/fencecheck/fencecheck/check"
	"github.com/fencecheck/fencecheck/explain"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/model"
)

// fast is the fast checker alone, with its violations worded.
func fast(ops []histories.Operation, opts check.Options) (explain.Result, error) {
	res, err := check.FastForTest(ops, opts)
	if err != nil {
		return explain.Result{}, err
	}
	return explain.Explain(ops, res, opts), nil
}

// hist builds operations by hand; every builder appends one operation and
// returns its ID, for the expected steps of a violation.
type hist struct{ ops []histories.Operation }

func (h *hist) add(o histories.Operation) int {
	o.ID = len(h.ops)
	o.Process = o.ID
	if o.Resource == "" {
		o.Resource = "r"
	}
	h.ops = append(h.ops, o)
	return o.ID
}

// write adds a write; status is accepted, rejected or unknown (then ret is
// ignored: the return is Infinity).
func (h *hist) write(call, ret int64, token uint64, value string, status histories.Status) int {
	if status == histories.StatusUnknown {
		ret = histories.Infinity
	}
	return h.add(histories.Operation{F: histories.FWrite, Token: token, HasToken: true, Value: value, HasValue: true, Status: status, Call: call, Return: ret})
}

func (h *hist) read(call, ret int64, value string) int {
	return h.add(histories.Operation{F: histories.FRead, Value: value, HasValue: true, Status: histories.StatusOK, Call: call, Return: ret})
}

func (h *hist) readToken(call, ret int64, value string, token uint64) int {
	id := h.read(call, ret, value)
	h.ops[id].Token, h.ops[id].HasToken = token, true
	return id
}

func (h *hist) readNothing(call, ret int64) int {
	return h.add(histories.Operation{F: histories.FRead, Status: histories.StatusOK, Call: call, Return: ret})
}

func (h *hist) on(resource string, id int) int {
	h.ops[id].Resource = resource
	return id
}

const (
	accepted = histories.StatusAccepted
	rejected = histories.StatusRejected
	unknown  = histories.StatusUnknown
)

type fastCase struct {
	name    string
	policy  model.Policy
	build   func(h *hist) []int // returns the IDs the explanation must name
	want    check.Verdict
	summary string // a fragment of the violation's summary
}

var fastCases = []fastCase{
	{name: "seed timeline, accept-equal", policy: model.AcceptEqual, want: check.Held, build: func(h *hist) []int {
		h.readNothing(1000, 1100)
		h.write(3000, 3100, 42, "new-result", accepted)
		h.write(4000, 4100, 41, "old-result", rejected)
		h.write(5000, 5100, 42, "new-result-again", accepted)
		h.read(6000, 6100, "new-result-again")
		return nil
	}},
	{name: "seed timeline, strict rejects the repeat", policy: model.Strict, want: check.Held, build: func(h *hist) []int {
		h.write(3000, 3100, 42, "new-result", accepted)
		h.write(4000, 4100, 41, "old-result", rejected)
		h.write(5000, 5100, 42, "new-result-again", rejected)
		h.readToken(6000, 6100, "new-result", 42)
		return nil
	}},
	{name: "seed's stale write accepted without fencing", policy: model.Strict, want: check.Violated, summary: "stale write accepted: token 41", build: func(h *hist) []int {
		b := h.write(3000, 3100, 42, "new-result", accepted)
		a := h.write(4000, 4100, 41, "old-result", accepted)
		return []int{b, a}
	}},
	{name: "old token before the newer reaches the resource", policy: model.Strict, want: check.Held, build: func(h *hist) []int {
		h.write(4000, 4100, 41, "old-result", accepted)
		h.write(5000, 5100, 42, "new-result", accepted)
		return nil
	}},
	{name: "wrong rejection with nothing written", policy: model.Strict, want: check.Violated, summary: "wrong rejection", build: func(h *hist) []int {
		return []int{h.write(0, 10, 5, "a", rejected)}
	}},
	{name: "wrong rejection before the blocking write was sent", policy: model.Strict, want: check.Violated, summary: "wrong rejection", build: func(h *hist) []int {
		// The write sent later is no evidence: nothing had been sent
		// before the rejection answered, which is all it takes.
		r := h.write(0, 10, 5, "a", rejected)
		h.write(20, 30, 6, "b", accepted)
		return []int{r}
	}},
	{name: "rejection justified by a concurrent write", policy: model.Strict, want: check.Held, build: func(h *hist) []int {
		h.write(0, 10, 5, "a", rejected)
		h.write(10, 30, 6, "b", accepted)
		return nil
	}},
	{name: "strict rejects token 0 from the start", policy: model.Strict, want: check.Held, build: func(h *hist) []int {
		h.write(0, 1, 0, "zero", rejected)
		return nil
	}},
	{name: "strict never accepts token 0", policy: model.Strict, want: check.Violated, summary: "token 0", build: func(h *hist) []int {
		return []int{h.write(0, 1, 0, "zero", accepted)}
	}},
	{name: "accept-equal accepts token 0", policy: model.AcceptEqual, want: check.Held, build: func(h *hist) []int {
		h.write(0, 1, 0, "zero", accepted)
		h.readToken(2, 3, "zero", 0)
		return nil
	}},
	{name: "strict token accepted twice", policy: model.Strict, want: check.Violated, summary: "was accepted twice", build: func(h *hist) []int {
		return []int{h.write(0, 1, 7, "a", accepted), h.write(2, 3, 7, "b", accepted)}
	}},
	{name: "read of a rejected value", policy: model.Strict, want: check.Violated, summary: "rejected", build: func(h *hist) []int {
		h.write(0, 1, 9, "new", accepted)
		w := h.write(2, 3, 8, "old", rejected)
		r := h.read(4, 5, "old")
		return []int{w, r}
	}},
	{name: "read of a value nobody wrote", policy: model.Strict, want: check.Violated, summary: "no write", build: func(h *hist) []int {
		return []int{h.read(4, 5, "ghost")}
	}},
	{name: "read before its write was sent", policy: model.AcceptEqual, want: check.Violated, summary: "before the write", build: func(h *hist) []int {
		r := h.read(0, 1, "later")
		w := h.write(2, 3, 1, "later", accepted)
		return []int{r, w}
	}},
	{name: "read reports the wrong token", policy: model.Strict, want: check.Violated, summary: "reported token 3", build: func(h *hist) []int {
		w := h.write(0, 1, 2, "v", accepted)
		r := h.readToken(2, 3, "v", 3)
		return []int{w, r}
	}},
	{name: "unwritten read reports token 0", policy: model.Strict, want: check.Held, build: func(h *hist) []int {
		id := h.readNothing(0, 1)
		h.ops[id].HasToken = true
		return nil
	}},
	{name: "unwritten read reports a token", policy: model.Strict, want: check.Violated, summary: "unwritten", build: func(h *hist) []int {
		id := h.readNothing(0, 1)
		h.ops[id].Token, h.ops[id].HasToken = 3, true
		return []int{id}
	}},
	{name: "stale read", policy: model.AcceptEqual, want: check.Violated, summary: "stale read", build: func(h *hist) []int {
		a := h.write(0, 1, 1, "old", accepted)
		b := h.write(2, 3, 2, "new", accepted)
		r := h.read(4, 5, "old")
		return []int{a, b, r}
	}},
	{name: "unwritten read after an accepted write", policy: model.Strict, want: check.Violated, summary: "unwritten", build: func(h *hist) []int {
		w := h.write(0, 1, 1, "v", accepted)
		r := h.readNothing(2, 3)
		return []int{w, r}
	}},
	{name: "touching intervals are concurrent", policy: model.Strict, want: check.Held, build: func(h *hist) []int {
		h.write(0, 5, 1, "v", accepted)
		h.readNothing(5, 6)
		return nil
	}},
	{name: "unknown write applied", policy: model.Strict, want: check.Held, build: func(h *hist) []int {
		h.write(0, 0, 3, "maybe", unknown)
		h.read(10, 11, "maybe")
		h.readToken(12, 13, "maybe", 3)
		return nil
	}},
	{name: "unknown write not applied", policy: model.Strict, want: check.Held, build: func(h *hist) []int {
		h.write(0, 0, 3, "maybe", unknown)
		h.readNothing(10, 11)
		return nil
	}},
	{name: "unknown write applied, then not", policy: model.Strict, want: check.Violated, summary: "unwritten", build: func(h *hist) []int {
		w := h.write(0, 0, 3, "maybe", unknown)
		r := h.read(10, 11, "maybe")
		n := h.readNothing(12, 13)
		return []int{w, r, n}
	}},
	{name: "unknown write justifies a rejection", policy: model.Strict, want: check.Held, build: func(h *hist) []int {
		h.write(0, 0, 5, "maybe", unknown)
		h.write(2, 3, 4, "stale", rejected)
		h.readNothing(0, 1)
		return nil
	}},
	{name: "accept-equal: an unknown write of an equal token justifies a rejection", policy: model.AcceptEqual, want: check.Held, build: func(h *hist) []int {
		h.write(0, 0, 5, "maybe", unknown)
		h.write(2, 3, 5, "equal", rejected)
		return nil
	}},
	{name: "accept-equal: a strict receiver rejects the repeat", policy: model.AcceptEqual, want: check.Held, build: func(h *hist) []int {
		h.write(0, 1, 42, "first", accepted)
		h.write(2, 3, 42, "repeat", rejected)
		h.readToken(4, 5, "first", 42)
		return nil
	}},
	{name: "accept-equal: repeats accepted and rejected in one history", policy: model.AcceptEqual, want: check.Held, build: func(h *hist) []int {
		h.write(0, 1, 7, "a", accepted)
		h.write(2, 3, 7, "b", rejected)
		h.write(4, 5, 7, "c", accepted)
		h.write(6, 7, 7, "d", rejected)
		h.readToken(8, 9, "c", 7)
		return nil
	}},
	{name: "accept-equal: token 0 rejected with nothing written", policy: model.AcceptEqual, want: check.Held, build: func(h *hist) []int {
		h.write(0, 1, 0, "zero", rejected)
		h.readNothing(2, 3)
		return nil
	}},
	{name: "accept-equal: a repeat rejected before its token was sent", policy: model.AcceptEqual, want: check.Violated, summary: "wrong rejection", build: func(h *hist) []int {
		r := h.write(0, 1, 5, "early", rejected)
		h.write(2, 3, 5, "late", accepted)
		return []int{r}
	}},
	{name: "accept-equal: a rejected repeat's value read", policy: model.AcceptEqual, want: check.Violated, summary: "the value of a write the resource rejected", build: func(h *hist) []int {
		h.write(0, 1, 42, "first", accepted)
		w := h.write(2, 3, 42, "repeat", rejected)
		r := h.read(4, 5, "repeat")
		return []int{w, r}
	}},
	{name: "unknown write that blocks must not hide a later read", policy: model.Strict, want: check.Violated, build: func(h *hist) []int {
		h.write(0, 1, 1, "first", accepted)
		h.write(0, 0, 5, "maybe", unknown)
		h.write(2, 3, 4, "stale", rejected)
		h.read(4, 5, "first")
		return nil
	}},
	{name: "accept-equal repeats in any order", policy: model.AcceptEqual, want: check.Held, build: func(h *hist) []int {
		h.write(0, 10, 7, "a", accepted)
		h.write(0, 10, 7, "b", accepted)
		h.write(0, 10, 7, "c", accepted)
		h.read(1, 2, "c")
		h.read(3, 4, "a")
		h.read(5, 6, "b")
		h.readToken(11, 12, "b", 7)
		return nil
	}},
	{name: "accept-equal repeats that each must come first", policy: model.AcceptEqual, want: check.Violated, summary: "share token 7", build: func(h *hist) []int {
		a := h.write(0, 10, 7, "a", accepted)
		b := h.write(0, 10, 7, "b", accepted)
		h.read(1, 2, "a")
		h.read(3, 4, "b")
		h.read(5, 6, "a")
		return []int{a, b}
	}},
	{name: "accept-equal: only a repeat that can go first justifies in time", policy: model.AcceptEqual, want: check.Violated, summary: "wrong rejection", build: func(h *hist) []int {
		// f was sent in time, and is the earliest that could justify
		// it, but g must come first for the read of f at 25.
		r := h.write(0, 5, 1, "early", rejected)
		f := h.write(0, 10, 1, "f", accepted)
		h.read(25, 26, "f")
		h.write(6, 20, 1, "g", accepted)
		return []int{r, f}
	}},
	{name: "accept-equal: the repeat that can go first justifies in time", policy: model.AcceptEqual, want: check.Held, build: func(h *hist) []int {
		h.write(0, 5, 1, "early", rejected)
		h.write(0, 10, 1, "f", accepted)
		h.read(11, 12, "f")
		h.write(6, 20, 1, "g", accepted)
		return nil
	}},
	{name: "several resources, one broken", policy: model.Strict, want: check.Violated, summary: "stale read", build: func(h *hist) []int {
		h.on("a", h.write(0, 1, 1, "a1", accepted))
		h.on("a", h.read(2, 3, "a1"))
		h.on("b", h.write(0, 1, 1, "b1", accepted))
		h.on("b", h.write(2, 3, 2, "b2", accepted))
		return []int{h.on("b", h.read(4, 5, "b1"))}
	}},
}

func TestCheckFast(t *testing.T) {
	t.Parallel()
	for _, tc := range fastCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var h hist
			named := tc.build(&h)
			opts := check.Options{Kind: model.KindFenced, Policy: tc.policy}
			if ref := check.PorcupineForTest(h.ops, opts); ref.Verdict != tc.want {
				t.Fatalf("porcupine says %s, the case expects %s: fix the case", ref.Verdict, tc.want)
			}
			res, err := fast(h.ops, opts)
			if err != nil {
				t.Fatal(err)
			}
			if res.Verdict != tc.want || res.Checker != "fast" {
				t.Fatalf("verdict %s by %s, want %s by fast; %+v", res.Verdict, res.Checker, tc.want, res.Violations)
			}
			if tc.want != check.Violated {
				return
			}
			if len(res.Violations) != 1 {
				t.Fatalf("%d violations, want 1: %+v", len(res.Violations), res.Violations)
			}
			v := res.Violations[0]
			t.Logf("%s: %s", v.Resource, v.Summary)
			if !strings.Contains(v.Summary, tc.summary) {
				t.Errorf("summary %q does not say %q", v.Summary, tc.summary)
			}
			var steps []int
			for _, s := range v.Steps {
				steps = append(steps, s.OpID)
				if s.Event == "" || s.Expected == "" {
					t.Errorf("step without event or expectation: %+v", s)
				}
			}
			for _, id := range named {
				if !slices.Contains(steps, id) {
					t.Errorf("steps %v do not name operation #%d; summary %q", steps, id, v.Summary)
				}
				if h.ops[id].Resource != v.Resource {
					t.Errorf("violation on %q, want %q", v.Resource, h.ops[id].Resource)
				}
			}
		})
	}
}

func TestCheckFastPrecondition(t *testing.T) {
	t.Parallel()
	var h hist
	h.on("report", h.write(0, 1, 1, "same", accepted))
	h.on("other", h.write(0, 1, 1, "same", accepted)) // another resource: fine
	h.on("report", h.write(2, 3, 2, "same", rejected))
	tests := []struct {
		name string
		opts check.Options
		want []string
	}{
		{"repeated value", check.Options{Kind: model.KindFenced}, []string{`"report"`, `"same"`, "#0", "#2"}},
		{"plain register", check.Options{Kind: model.KindRegister}, []string{"register"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := fast(h.ops, tc.opts)
			var unsupported *check.Unsupported
			if !errors.As(err, &unsupported) {
				t.Fatalf("error %v, want *check.Unsupported", err)
			}
			for _, s := range tc.want {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not name %s", err, s)
				}
			}
		})
	}
}

func TestCheckFastIgnoresFailedAndUnknownReads(t *testing.T) {
	t.Parallel()
	var h hist
	h.write(0, 1, 1, "v", accepted)
	// A failed write may repeat a value: it is dropped before the check.
	id := h.write(2, 3, 1, "v", accepted)
	h.ops[id].Status = histories.StatusFailed
	id = h.read(4, 5, "ghost")
	h.ops[id].Status, h.ops[id].Return = histories.StatusUnknown, histories.Infinity
	res, err := fast(h.ops, check.Options{})
	if err != nil || res.Verdict != check.Held {
		t.Fatalf("got %s, %v; want held", res.Verdict, err)
	}
}

func TestSortByTokenIsStable(t *testing.T) {
	t.Parallel()
	// Tokens lie within 50 of 1000 (above 0, so the counting sort must
	// offset); every seventh is an outlier of outlierBits random bits, which
	// sends n >= 64 records to the radix sort: 64 bits need all eight
	// passes, 20 bits three, an odd number, so the result must be copied
	// back. Without outliers the counting sort runs.
	for _, tc := range []struct {
		n           int
		outlierBits uint
	}{{0, 64}, {1, 64}, {10, 64}, {63, 64}, {64, 64}, {1000, 64}, {1000, 20}, {64, 0}, {1000, 0}} {
		n := tc.n
		t.Run(fmt.Sprintf("%d/outliers=%d-bit", n, tc.outlierBits), func(t *testing.T) {
			t.Parallel()
			type rec struct {
				token uint64
				seq   int
			}
			r := rand.New(rand.NewPCG(uint64(n), 1))
			xs := make([]rec, n)
			for i := range xs {
				xs[i] = rec{token: 1000 + r.Uint64N(50), seq: i}
				if tc.outlierBits > 0 && i%7 == 0 {
					xs[i].token = r.Uint64() >> (64 - tc.outlierBits)
				}
			}
			want := slices.Clone(xs)
			slices.SortStableFunc(want, func(a, b rec) int { return cmp.Compare(a.token, b.token) })
			check.SortByTokenForTest(xs, func(x *rec) uint64 { return x.token })
			if !slices.Equal(xs, want) {
				t.Fatalf("got %v, want %v", xs, want)
			}
		})
	}
}

func TestCheckFastPreconditionNamesFirstResource(t *testing.T) {
	t.Parallel()
	var h hist
	for _, r := range []string{"b", "a"} {
		h.on(r, h.write(0, 1, 1, "same", accepted))
		h.on(r, h.write(2, 3, 2, "same", accepted))
	}
	_, err := fast(h.ops, check.Options{})
	var unsupported *check.Unsupported
	if !errors.As(err, &unsupported) || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), `resource "a"`) {
		t.Fatalf("error %q, want one line about resource \"a\"", err)
	}
}
