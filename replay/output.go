package replay

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/internal/files"
)

// Lines returns the article's four replay lines.
func (r *Report) Lines() []string {
	return []string{
		"unfenced final value: " + r.UnfencedFinal,
		"fenced final value: " + r.FencedFinal,
		"repeated current token: " + r.RepeatedToken.String(),
		"old token before newer token reaches resource: " + r.OldTokenFirst.String(),
	}
}

// WriteText writes the replay for people: the four lines, the comparison,
// the limit the last line shows, the strategies' table, and the paths
// WriteFiles wrote.
func (r *Report) WriteText(w io.Writer, paths []string) error {
	var b strings.Builder
	b.WriteString(strings.Join(r.Lines(), "\n") + "\n\n")
	_ = r.WriteTable(&b)
	b.WriteString("\nThe last line is the critical limit: a resource that remembers only its\n" +
		"highest token accepts an old token that arrives before the newer one.\n\n" +
		"The same timeline played by each client strategy's workers (docs/fixes.md):\n\n")
	_ = r.WriteStrategyTable(&b)
	b.WriteString("\n")
	for _, p := range paths {
		fmt.Fprintf(&b, "wrote %s\n", p)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteTable writes the comparison in the article's table style.
func (r *Report) WriteTable(w io.Writer) error {
	var b strings.Builder
	b.WriteString("| Step | Event | Without fencing | With fencing |\n|---|---|---|---|\n")
	for _, row := range r.Comparison {
		fmt.Fprintf(&b, "| %d | %s | %s | %s |\n", row.Step, row.Event, row.WithoutFencing, row.WithFencing)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteStrategyTable writes the strategy table in the article's table
// style.
func (r *Report) WriteStrategyTable(w io.Writer) error {
	var b strings.Builder
	b.WriteString("| Strategy | Receiver | A's old result (step 4) | Stale writes accepted | Verdict | Job latency p50 | p99 | Leases taken from live workers |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|\n")
	for _, row := range r.Strategies {
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %s | %v | %v | %d |\n", row.Strategy, row.Receiver, row.AWrite,
			row.StaleAccepted, row.Verdict, row.LatencyP50.Round(10*time.Microsecond), row.LatencyP99.Round(10*time.Microsecond),
			row.UnnecessaryReassignments)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteFiles writes each case's trace (NAME.jsonl), the comparison
// (comparison.csv, comparison.json), the strategy table (strategies.csv,
// strategies.json) and each strategy's trace (strategies/NAME.jsonl)
// into dir, creating it. It returns the paths written, in that order.
func (r *Report) WriteFiles(dir string) ([]string, error) {
	paths, err := writeTraces(dir, r.Traces)
	if err != nil {
		return nil, err
	}
	sub, err := writeTraces(filepath.Join(dir, "strategies"), r.StrategyTraces)
	if err != nil {
		return nil, err
	}
	for _, f := range []struct {
		name, what string
		write      func(io.Writer) error
	}{
		{"comparison.csv", "comparison", r.writeCSV},
		{"comparison.json", "comparison", func(w io.Writer) error { return writeJSON(w, r.Comparison) }},
		{"strategies.csv", "strategy table", r.writeStrategyCSV},
		{"strategies.json", "strategy table", func(w io.Writer) error { return writeJSON(w, r.Strategies) }},
	} {
		p := filepath.Join(dir, f.name)
		if err := files.Write(p, f.what, f.write); err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	return append(paths, sub...), nil
}

// writeTraces writes each trace as NAME.jsonl into dir, creating it.
func writeTraces(dir string, traces []Trace) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create replay output %s: %w", dir, err)
	}
	var paths []string
	for _, t := range traces {
		p := filepath.Join(dir, t.Name+".jsonl")
		if err := files.Write(p, "history", func(w io.Writer) error { return histories.Write(w, t.Events) }); err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

func (r *Report) writeStrategyCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"strategy", "receiver", "a_write", "final_value", "stale_writes_accepted", "verdict",
		"jobs", "abandoned", "latency_p50_ns", "latency_p99_ns", "unnecessary_reassignments", "trace"}); err != nil {
		return err
	}
	for _, row := range r.Strategies {
		if err := cw.Write([]string{row.Strategy, row.Receiver, row.AWrite, row.Final, strconv.Itoa(row.StaleAccepted), row.Verdict,
			strconv.Itoa(row.Jobs), strconv.Itoa(row.Abandoned), strconv.FormatInt(int64(row.LatencyP50), 10),
			strconv.FormatInt(int64(row.LatencyP99), 10), strconv.Itoa(row.UnnecessaryReassignments), row.Trace}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func (r *Report) writeCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"step", "event", "without_fencing", "with_fencing"}); err != nil {
		return err
	}
	for _, row := range r.Comparison {
		if err := cw.Write([]string{strconv.Itoa(row.Step), row.Event, row.WithoutFencing, row.WithFencing}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
