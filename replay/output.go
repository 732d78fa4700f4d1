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

// WriteFiles writes each case's trace (NAME.jsonl) and the comparison
// (comparison.csv, comparison.json) into dir, creating it. It returns the
// paths written, in a fixed order.
func (r *Report) WriteFiles(dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create replay output %s: %w", dir, err)
	}
	var paths []string
	for _, t := range r.Traces {
		p := filepath.Join(dir, t.Name+".jsonl")
		if err := histories.WriteFile(p, t.Events); err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	p := filepath.Join(dir, "comparison.csv")
	if err := files.Write(p, "comparison", r.writeCSV); err != nil {
		return nil, err
	}
	paths = append(paths, p)
	p = filepath.Join(dir, "comparison.json")
	if err := files.Write(p, "comparison", r.writeJSON); err != nil {
		return nil, err
	}
	return append(paths, p), nil
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

func (r *Report) writeJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r.Comparison)
}
