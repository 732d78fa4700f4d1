package judge

import (
	"math"
	"strings"
	"testing"
)

// The interval a calibrated pass states is the textbook exact one: the
// values below are R's binom.test and the closed forms at the ends.
func TestClopperPearsonMatchesTheExactInterval(t *testing.T) {
	cases := []struct {
		k, n         int
		lower, upper float64
	}{
		{0, 10, 0, 0.3084971},
		{10, 10, 0.6915029, 1},
		{5, 10, 0.187086, 0.812914},
		{1, 20, 0.001265, 0.248733},
		{0, 0, 0, 1},
	}
	for _, tc := range cases {
		lo, hi := ClopperPearson(tc.k, tc.n, 0.95)
		if math.Abs(lo-tc.lower) > 1e-5 || math.Abs(hi-tc.upper) > 1e-5 {
			t.Errorf("ClopperPearson(%d, %d) = [%.6f, %.6f], want [%.6f, %.6f]", tc.k, tc.n, lo, hi, tc.lower, tc.upper)
		}
	}
	// k = n: the lower bound is (α/2)^(1/n).
	if lo, _ := ClopperPearson(5, 5, 0.95); math.Abs(lo-math.Pow(0.025, 0.2)) > 1e-9 {
		t.Errorf("5 of 5: lower %.9f, want %.9f", lo, math.Pow(0.025, 0.2))
	}
}

func TestSeedsForIsTheFewestThatReachTheConfidence(t *testing.T) {
	cases := []struct {
		q, conf float64
		want    int
		ok      bool
	}{
		{0.5, 0.99, 7, true}, // 1-0.5^7 = 0.992
		{0.9, 0.99, 2, true}, // 1-0.01 = 0.99
		{1, 0.99, 1, true},
		{0.01, 0.95, 299, true}, // the rule of three
		{0, 0.99, 0, false},
	}
	for _, tc := range cases {
		n, ok := SeedsFor(tc.q, tc.conf)
		if n != tc.want || ok != tc.ok {
			t.Errorf("SeedsFor(%v, %v) = %d, %v; want %d, %v", tc.q, tc.conf, n, ok, tc.want, tc.ok)
		}
		if ok && (Caught(tc.q, n) < tc.conf || (n > 1 && Caught(tc.q, n-1) >= tc.conf)) {
			t.Errorf("SeedsFor(%v, %v) = %d is not the fewest", tc.q, tc.conf, n)
		}
	}
}

func TestPlanTakesTheHardestTwinAndSaysWhy(t *testing.T) {
	twins := []Twin{Measured("unfenced", "ignores tokens", 10, 10), Measured("check-then-set", "two steps", 10, 5)}
	c := Plan(twins, 0.99, 0)
	want, _ := SeedsFor(twins[1].Lower, 0.99)
	if !c.Reached || c.Seeds != want || !strings.Contains(c.Why, "check-then-set") {
		t.Fatalf("Plan = %+v, want %d seeds for check-then-set", c, want)
	}
	c.For(c.Seeds)
	for _, tw := range c.Twins {
		if tw.Probability < 0.99 {
			t.Errorf("twin %s: probability %v below 0.99 with the planned seeds", tw.Name, tw.Probability)
		}
	}
	if v, _ := c.Gate(Held, "ok"); v != Held {
		t.Errorf("a reached calibration turned HELD into %s", v)
	}

	never := Plan([]Twin{Measured("check-then-set", "two steps", 10, 0)}, 0.99, 50)
	if never.Reached || never.Seeds != 50 || !strings.Contains(never.Why, "0 of 10") {
		t.Fatalf("a twin never caught: %+v", never)
	}
	never.For(50)
	if v, reason := never.Gate(Held, "ok"); v != Inconclusive || !strings.Contains(reason, "did not reach 0.99") {
		t.Errorf("a HELD short of the confidence: %s (%s), want inconclusive", v, reason)
	}
	if v, _ := never.Gate(Violated, "stale write"); v != Violated {
		t.Errorf("a violation was turned into %s", v)
	}
}

func TestSentencesStateTheCalibratedProbability(t *testing.T) {
	c := Calibration{Twins: []Twin{Measured("check-then-set", "reads, then writes in a second step", 10, 10)}}
	c.For(1)
	got := c.Sentences("this run")[0]
	for _, want := range []string{"a receiver broken like check-then-set", "caught by this run with probability ≥ 0.69", "calibrated: 10 of 10 twin runs failed"} {
		if !strings.Contains(got, want) {
			t.Errorf("sentence %q lacks %q", got, want)
		}
	}
}
