package judge

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"
)

// CalibrationLevel is the confidence of the interval put on a twin's
// per-run detection rate: its lower bound is what a calibrated pass
// states.
const CalibrationLevel = 0.95

// Twin is a receiver broken in a known way, run in the configuration of
// the pass it calibrates: how often its runs failed says how likely the
// pass was to catch a receiver broken like it.
type Twin struct {
	// Name is the twin's bug ("check-then-set"), Broken what it does wrong.
	Name   string `json:"name"`
	Broken string `json:"broken"`
	// Runs is how many twin runs were made, Caught how many violated.
	// A twin run that was inconclusive or was interrupted counts as not
	// caught: the bound stays on the safe side.
	Runs   int `json:"runs"`
	Caught int `json:"caught"`
	// Rate is Caught/Runs; Lower and Upper the exact binomial
	// (Clopper–Pearson) interval on the per-run detection rate at
	// CalibrationLevel.
	Rate  float64 `json:"rate"`
	Lower float64 `json:"rate_lower"`
	Upper float64 `json:"rate_upper"`
	// Probability is the lower bound of the chance that the pass's runs
	// (Calibration.Seeds of them) would have caught this twin:
	// 1-(1-Lower)^Seeds.
	Probability float64 `json:"probability"`
	// Omitted are the pass's faults the twin could not take (a fault on
	// the receiver process, when the twin runs in fencecheck itself).
	Omitted []string `json:"omitted_faults,omitempty"`
}

// Calibration is what a pass's twins measured, and what it makes of the
// pass: the chance it would have caught each of them.
type Calibration struct {
	// Confidence is the probability asked for (sweep --confidence); 0
	// when none was.
	Confidence float64 `json:"confidence,omitempty"`
	// Seeds is how many runs of the target the probabilities are for.
	Seeds int    `json:"seeds"`
	Twins []Twin `json:"twins"`
	// Reached: every twin's Probability is at least Confidence (true
	// when none was asked for).
	Reached bool `json:"reached"`
	// Why says how Seeds was chosen.
	Why string `json:"why,omitempty"`
}

// Measured is a twin's rates from its runs, before a pass uses them.
func Measured(name, broken string, runs, caught int) Twin {
	t := Twin{Name: name, Broken: broken, Runs: runs, Caught: caught}
	if runs > 0 {
		t.Rate = float64(caught) / float64(runs)
	}
	t.Lower, t.Upper = ClopperPearson(caught, runs, CalibrationLevel)
	return t
}

// ClopperPearson is the exact two-sided binomial interval at level on
// the rate of k successes in n trials: the Beta quantiles (α/2; k, n-k+1)
// and (1-α/2; k+1, n-k), with 0 and 1 at the ends. With no trial it is
// [0, 1]: nothing is known.
func ClopperPearson(k, n int, level float64) (lower, upper float64) {
	if n <= 0 || k < 0 || k > n {
		return 0, 1
	}
	alpha := 1 - level
	lower, upper = 0, 1
	if k > 0 {
		lower = distuv.Beta{Alpha: float64(k), Beta: float64(n - k + 1)}.Quantile(alpha / 2)
	}
	if k < n {
		upper = distuv.Beta{Alpha: float64(k + 1), Beta: float64(n - k)}.Quantile(1 - alpha/2)
	}
	return lower, upper
}

// Caught is the chance that at least one of n independent runs, each
// catching a bug with probability q, catches it: 1-(1-q)^n.
func Caught(q float64, n int) float64 {
	if n <= 0 || q <= 0 {
		return 0
	}
	if q >= 1 {
		return 1
	}
	// Short of certainty however many runs: a bound is never 1.
	return min(-math.Expm1(float64(n)*math.Log1p(-q)), math.Nextafter(1, 0))
}

// SeedsFor is the fewest runs n with 1-(1-q)^n ≥ confidence, for a
// per-run detection rate q; false when q is 0 (no number of runs would
// do).
func SeedsFor(q, confidence float64) (int, bool) {
	switch {
	case confidence <= 0:
		return 1, true
	case q <= 0:
		return 0, false
	case q >= 1:
		return 1, true
	}
	n := int(math.Ceil(math.Log1p(-confidence) / math.Log1p(-q)))
	for n > 1 && Caught(q, n-1) >= confidence { // rounding
		n--
	}
	for Caught(q, n) < confidence {
		n++
	}
	return max(n, 1), true
}

// Plan chooses how many seeds a pass needs for every twin to reach
// confidence, at most limit (0: no limit): the largest of the twins'
// SeedsFor. Reached is false when a twin was never caught or needs more
// than limit; Why says which, in words.
func Plan(twins []Twin, confidence float64, limit int) Calibration {
	c := Calibration{Confidence: confidence, Twins: twins, Reached: true}
	need, hardest := 1, ""
	for _, t := range twins {
		n, ok := SeedsFor(t.Lower, confidence)
		if !ok {
			c.Reached = false
			c.Why = fmt.Sprintf("no number of seeds reaches %s: the twin %s was caught in %d of %d runs, and its detection rate may be 0", prob(confidence), t.Name, t.Caught, t.Runs)
			need = limit
			break
		}
		if n > need {
			need, hardest = n, t.Name
		}
	}
	if c.Reached {
		switch {
		case hardest == "":
			c.Why = fmt.Sprintf("1 seed reaches %s for every twin", prob(confidence))
		default:
			t := twins[indexOf(twins, hardest)]
			c.Why = fmt.Sprintf("%d seeds: the twin %s, caught at a per-run rate of at least %s (%d of %d twin runs failed), needs %d to be caught with probability ≥ %s",
				need, hardest, prob(t.Lower), t.Caught, t.Runs, need, prob(confidence))
		}
		if limit > 0 && need > limit {
			c.Reached = false
			c.Why += fmt.Sprintf("; only %d may run", limit)
			need = limit
		}
	}
	c.Seeds = max(need, 1)
	return c
}

func indexOf(twins []Twin, name string) int {
	for i, t := range twins {
		if t.Name == name {
			return i
		}
	}
	return 0
}

// For sets each twin's Probability for a pass of seeds runs, and whether
// the confidence asked for was reached.
func (c *Calibration) For(seeds int) {
	c.Seeds = seeds
	reached := true
	for i := range c.Twins {
		t := &c.Twins[i]
		t.Probability = Caught(t.Lower, seeds)
		if c.Confidence > 0 && t.Probability < c.Confidence {
			reached = false
		}
	}
	c.Reached = reached
}

// Sentences word the calibration for a gate owner, a line per twin:
// "a receiver broken like check-then-set (…) would have been caught by
// this run with probability ≥ 0.83 (calibrated: 10 of 10 twin runs
// failed)". what names the pass ("this run", "these 12 runs").
func (c *Calibration) Sentences(what string) []string {
	var out []string
	for _, t := range c.Twins {
		s := fmt.Sprintf("a receiver broken like %s (%s) would have been caught by %s with probability ≥ %s (calibrated: %d of %d twin runs failed)",
			t.Name, t.Broken, what, prob(t.Probability), t.Caught, t.Runs)
		if len(t.Omitted) > 0 {
			s += fmt.Sprintf("; the twin ran without %s, which it cannot take", strings.Join(t.Omitted, ", "))
		}
		out = append(out, s)
	}
	return out
}

// Measure words what the twin's runs measured: "caught in 7 of 8 twin
// runs (rate 0.87, 95 % interval 0.47–1.00)".
func (t Twin) Measure() string {
	return fmt.Sprintf("caught in %d of %d twin runs (rate %s, %.0f %% interval %s–%s)", t.Caught, t.Runs, prob(t.Rate), 100*CalibrationLevel, prob(t.Lower), probUp(t.Upper))
}

// Gate is a pass's verdict once the calibration is known: a HELD that
// did not reach the confidence asked for is inconclusive, since the pass
// cannot say what it was asked to. Other verdicts stand.
func (c *Calibration) Gate(v Verdict, reason string) (Verdict, string) {
	if c == nil || c.Confidence <= 0 || c.Reached || v != Held {
		return v, reason
	}
	var short []string
	for _, t := range c.Twins {
		if t.Probability < c.Confidence {
			short = append(short, fmt.Sprintf("%s reached %s", t.Name, prob(t.Probability)))
		}
	}
	return Inconclusive, fmt.Sprintf("every run held, but the calibration did not reach %s for every twin in %d runs (%s): %s",
		prob(c.Confidence), c.Seeds, strings.Join(short, ", "), c.Why)
}

// prob words a probability to two decimals, never rounding up to a
// certainty it is not.
func prob(p float64) string {
	switch {
	case p >= 1:
		return "1.00"
	case p > 0.99:
		return fmt.Sprintf("%.4f", min(math.Floor(p*1e4)/1e4, 0.9999))
	case p > 0 && p < 0.1:
		return fmt.Sprintf("%.3f", math.Floor(p*1e3)/1e3)
	}
	return fmt.Sprintf("%.2f", math.Floor(p*100)/100)
}

// probUp words an upper bound, rounded up.
func probUp(p float64) string { return fmt.Sprintf("%.2f", math.Ceil(p*100)/100) }
