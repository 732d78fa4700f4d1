package verify

import (
	"context"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/model"
	"github.com/fencecheck/fencecheck/targets"
	"github.com/fencecheck/fencecheck/targets/memory"
)

// options are DefaultOptions under policy p, with or without the
// exclusive requirement, and a fixed run id.
func options(p model.Policy, excl bool) Options {
	o := DefaultOptions()
	o.Policy, o.RequireExclusive, o.RunID = p, excl, "t"
	return o
}

// battery runs the battery, which must accept o.
func battery(t *testing.T, tgt targets.Target, o Options) []Row {
	t.Helper()
	rows, err := Run(context.Background(), tgt, o)
	require.NoError(t, err)
	requireValidReport(t, Report{Target: "test", Policy: o.Policy.String(), MaxToken: o.MaxToken, Exclusive: o.RequireExclusive,
		Passed: Passed(rows), Outcomes: rows})
	return rows
}

// statuses runs the battery and returns each scenario's result.
func statuses(t *testing.T, tgt targets.Target, o Options) map[string]Result {
	t.Helper()
	got := make(map[string]Result)
	for _, out := range battery(t, tgt, o) {
		got[out.Scenario] = out.Result
		t.Logf("%s: %s (%s)", out.Scenario, out.Result, out.Observed)
	}
	return got
}

// TestBatteryFindsEachMemoryReceiver: the correct receiver passes every
// scenario it can run; each broken one fails its matching scenario.
func TestBatteryFindsEachMemoryReceiver(t *testing.T) {
	t.Parallel()
	cases := []struct {
		target string
		policy model.Policy
		excl   bool
		failed []string
	}{
		{"fenced", model.Strict, false, nil},
		{"unfenced", model.Strict, false, []string{"stale-after-newer", "equal-token-repeat", "digit-boundaries"}},
		{"check-then-set", model.Strict, false, []string{"check-then-set-race", "two-first-writers"}},
		{"accept-equal", model.Strict, false, []string{"equal-token-repeat"}},
		{"accept-equal", model.AcceptEqual, false, nil},
		// The policies nest: a strict receiver is correct under
		// accept-equal, which allows the repeat to be rejected.
		{"fenced", model.AcceptEqual, false, nil},
		{"fenced", model.Strict, true, []string{"old-token-first"}},
	}
	for _, tc := range cases {
		t.Run(tc.target+"/"+tc.policy.String()+"/exclusive="+strconv.FormatBool(tc.excl), func(t *testing.T) {
			t.Parallel()
			tgt, err := memory.Open(tc.target)
			require.NoError(t, err)
			got := statuses(t, tgt, options(tc.policy, tc.excl))
			require.Len(t, got, len(scenarios))
			for _, name := range Names() {
				want := Pass
				switch {
				case contains(tc.failed, name):
					want = Fail
				case name == "old-token-first":
					want = Info
				case name == "restart-durability":
					want = Skip
				}
				if tc.target == "unfenced" && want == Pass {
					continue // last-writer-wins passes some rows by luck of order
				}
				assert.Equal(t, want, got[name], name)
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// floatTarget compares tokens as float64, as a JavaScript receiver would:
// 2^53 + 1 is 2^53 to it.
type floatTarget struct{ *memory.Fenced }

func (f floatTarget) Write(ctx context.Context, resource string, token uint64, value string) (histories.Outcome, error) {
	return f.Fenced.Write(ctx, resource, uint64(float64(token)), value)
}

// stringTarget compares tokens as decimal strings: "10" < "9".
type stringTarget struct {
	floatTarget
	mu      sync.Mutex
	highest map[string]string
}

func (s *stringTarget) Write(ctx context.Context, resource string, token uint64, value string) (histories.Outcome, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	tok := strconv.FormatUint(token, 10)
	if tok <= s.highest[resource] {
		return histories.Rejected, nil
	}
	s.highest[resource] = tok
	return s.Fenced.Write(ctx, resource, token, value)
}

func TestDigitBoundariesFindsSloppyComparisons(t *testing.T) {
	t.Parallel()
	for name, tgt := range map[string]targets.Target{
		"float64": floatTarget{memory.NewFenced()},
		"string":  &stringTarget{floatTarget: floatTarget{memory.NewFenced()}, highest: map[string]string{}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := statuses(t, tgt, options(model.Strict, false))
			assert.Equal(t, Fail, got["digit-boundaries"])
			assert.Equal(t, Pass, got["stale-after-newer"])
		})
	}
}

// flipRepeat reports the opposite of what its receiver did with the second
// write to a resource: it accepts a repeat and says it rejected it, or
// rejects it and says it accepted it.
type flipRepeat struct {
	targets.Target
	mu   sync.Mutex
	seen map[string]bool
}

func (f *flipRepeat) Write(ctx context.Context, resource string, token uint64, value string) (histories.Outcome, error) {
	out, err := f.Target.Write(ctx, resource, token, value)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.seen[resource] && err == nil {
		out = map[histories.Outcome]histories.Outcome{histories.Accepted: histories.Rejected, histories.Rejected: histories.Accepted}[out]
	}
	f.seen[resource] = true
	return out, err
}

// TestEqualTokenRepeatUnderEachPolicy: under strict the repeat must be
// rejected; under accept-equal either answer passes, as long as the read
// agrees with it.
func TestEqualTokenRepeatUnderEachPolicy(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name                string
		target              func() targets.Target
		strict, acceptEqual Result
	}{
		{"rejects the repeat", func() targets.Target { return memory.NewFenced() }, Pass, Pass},
		{"accepts the repeat", func() targets.Target { return memory.NewAcceptEqual() }, Fail, Pass},
		{"says accepted, keeps the first", func() targets.Target { return &flipRepeat{Target: memory.NewFenced(), seen: map[string]bool{}} }, Fail, Fail},
		{"says rejected, keeps the repeat", func() targets.Target { return &flipRepeat{Target: memory.NewAcceptEqual(), seen: map[string]bool{}} }, Fail, Fail},
	}
	for _, tc := range cases {
		for _, p := range []model.Policy{model.Strict, model.AcceptEqual} {
			t.Run(tc.name+"/"+p.String(), func(t *testing.T) {
				t.Parallel()
				want := tc.strict
				if p == model.AcceptEqual {
					want = tc.acceptEqual
				}
				for _, out := range battery(t, tc.target(), options(p, false)) {
					if out.Scenario != "equal-token-repeat" {
						continue
					}
					t.Logf("expected %s; observed %s: %s", out.Expected, out.Observed, out.Result)
					assert.Equal(t, want, out.Result)
					if p == model.AcceptEqual {
						assert.Contains(t, out.Expected, "accepted or rejected")
					} else {
						assert.Contains(t, out.Expected, "repeat of 42 rejected")
					}
				}
			})
		}
	}
}

// words are Terms that mark each setting, to see where the rows use them.
type words struct{}

func (words) Setting(s Setting) string { return "<" + string(s) + ">" }

// TestRowsWordSettingsInTheCallersTerms: the rows that point at a setting
// name it as Options.Terms words it, and as Go names it without Terms.
func TestRowsWordSettingsInTheCallersTerms(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		terms Terms
		want  map[string]string // scenario: what its expected or observed text holds
	}{
		{"go", nil, map[string]string{
			"old-token-first":    "41 rejected (Options.RequireExclusive: its lease",
			"restart-durability": "skipped: needs a receiver process (a target that implements verify.Restarter)"}},
		{"the caller's", words{}, map[string]string{
			"old-token-first":    "41 rejected (<Options.RequireExclusive>: its lease",
			"restart-durability": "skipped: needs a receiver process (<a target that implements verify.Restarter>)"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := options(model.Strict, true)
			o.Terms = tc.terms
			rows := battery(t, memory.NewFenced(), o)
			for _, row := range rows {
				if want, ok := tc.want[row.Scenario]; ok {
					assert.Contains(t, row.Expected+" "+row.Observed, want, row.Scenario)
					delete(tc.want, row.Scenario)
				}
			}
			assert.Empty(t, tc.want, "scenarios not in the battery")
		})
	}
}

func TestRunRejectsNoRounds(t *testing.T) {
	t.Parallel()
	for _, rounds := range []int{0, -1} {
		t.Run(strconv.Itoa(rounds), func(t *testing.T) {
			t.Parallel()
			o := options(model.Strict, false)
			o.Rounds = rounds
			_, err := Run(context.Background(), memory.NewFenced(), o)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "Rounds")
		})
	}
}
