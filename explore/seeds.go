package explore

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Seeds is the range of seeds a sweep runs, First to Last inclusive.
type Seeds struct {
	First uint64 `json:"first"`
	Last  uint64 `json:"last"`
}

// Unbounded is every seed from 1: a sweep that a budget, a violation or
// an interruption ends.
func Unbounded() Seeds { return Seeds{First: 1, Last: math.MaxUint64} }

// Len is how many seeds the range holds (math.MaxUint64 when it holds
// them all).
func (s Seeds) Len() uint64 {
	if s.Last < s.First {
		return 0
	}
	if s.First == 0 && s.Last == math.MaxUint64 {
		return math.MaxUint64
	}
	return s.Last - s.First + 1
}

// Unbounded says whether the range runs to the last seed there is, so
// that only a budget or a violation ends it in practice.
func (s Seeds) Unbounded() bool { return s.Last == math.MaxUint64 }

func (s Seeds) String() string {
	if s.First == s.Last {
		return strconv.FormatUint(s.First, 10)
	}
	if s.Unbounded() {
		return fmt.Sprintf("%d-", s.First)
	}
	return fmt.Sprintf("%d-%d", s.First, s.Last)
}

// Validate reports a range with no seed in it.
func (s Seeds) Validate() error {
	if s.Last < s.First {
		return fmt.Errorf("seeds %d-%d: the first is above the last", s.First, s.Last)
	}
	return nil
}

// ErrSeeds is the error of a seed range that is not A-B or N.
var ErrSeeds = errors.New("want A-B (seeds A to B, both included, A ≤ B) or N (seeds 1 to N)")

// ParseSeeds reads a seed range: "A-B" is the seeds A to B, both
// included; "N" is the first N seeds, 1 to N (a single seed is A-A, or
// fencecheck run --seed).
func ParseSeeds(text string) (Seeds, error) {
	a, b, isRange := strings.Cut(strings.TrimSpace(text), "-")
	num := func(s string) (uint64, error) {
		if s == "" || strings.TrimLeft(s, "0123456789") != "" {
			return 0, fmt.Errorf("%q: %w", text, ErrSeeds)
		}
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%q: %s is not a 64-bit seed: %w", text, s, ErrSeeds)
		}
		return n, nil
	}
	first, err := num(a)
	if err != nil {
		return Seeds{}, err
	}
	if !isRange {
		if first == 0 {
			return Seeds{}, fmt.Errorf("%q: no seed at all: %w", text, ErrSeeds)
		}
		return Seeds{First: 1, Last: first}, nil
	}
	last, err := num(b)
	if err != nil {
		return Seeds{}, err
	}
	s := Seeds{First: first, Last: last}
	if err := s.Validate(); err != nil {
		return Seeds{}, fmt.Errorf("%q: %w", text, ErrSeeds)
	}
	return s, nil
}
