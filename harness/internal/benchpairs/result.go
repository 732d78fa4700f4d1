package main

import (
	"bufio"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// result is what one run of a benchmark printed: its time per operation,
// or why it skipped.
type result struct {
	nsPerOp float64
	skip    string
}

// parse reads go test -bench -v output: the ns/op of the one benchmark
// line, or the reason of a skip, which -v prints as the indented lines
// before "--- SKIP:".
func parse(out string) (result, error) {
	var r result
	var indented []string // the indented lines since the last other line
	found := false
	for sc := bufio.NewScanner(strings.NewReader(out)); sc.Scan(); {
		line := sc.Text()
		if strings.HasPrefix(line, "    ") {
			indented = append(indented, strings.TrimSpace(line))
			continue
		}
		if strings.HasPrefix(line, "--- SKIP:") {
			r.skip = strings.Join(indented, " ")
			if r.skip == "" {
				r.skip = strings.TrimSpace(strings.TrimPrefix(line, "--- SKIP:"))
			}
		}
		indented = indented[:0]
		if !strings.HasPrefix(line, "Benchmark") {
			continue
		}
		f := strings.Fields(line)
		for i := 2; i < len(f); i++ {
			if f[i] == "ns/op" {
				v, err := strconv.ParseFloat(f[i-1], 64)
				if err != nil {
					return result{}, fmt.Errorf("ns/op in %q: %w", line, err)
				}
				r.nsPerOp, found = v, true
			}
		}
	}
	switch {
	case r.skip != "":
		return r, nil
	case !found:
		return result{}, errors.New("no benchmark line with ns/op")
	}
	return r, nil
}

// sides are the times per operation of one receiver's runs.
type sides struct {
	harness, plain []float64
}

// summary is the line printed for a receiver: every run, the medians,
// and the harness's throughput as a fraction of the plain loop's: the
// ratio of the medians, and the median of each pair's ratio, which a
// change of the machine's load between pairs moves less.
func (s *sides) summary(name string) string {
	h, p := median(s.harness), median(s.plain)
	pairs := make([]float64, min(len(s.harness), len(s.plain)))
	for i := range pairs {
		pairs[i] = s.plain[i] / s.harness[i]
	}
	return fmt.Sprintf("%-8s harness median %.1f µs/op %v | plain median %.1f µs/op %v | harness/plain throughput %.2f (median of pair ratios %.2f)",
		name, h/1e3, micros(s.harness), p/1e3, micros(s.plain), p/h, median(pairs))
}

// median of a non-empty slice; the mean of the middle two for an even
// length.
func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// micros formats times in ns as a list in µs.
func micros(v []float64) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = strconv.FormatFloat(x/1e3, 'f', 0, 64)
	}
	return "(" + strings.Join(parts, " ") + ")"
}
