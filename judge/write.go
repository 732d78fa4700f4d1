package judge

import (
	"fmt"
	"io"
	"strings"

	"github.com/fencecheck/fencecheck/explain"
	"github.com/fencecheck/fencecheck/internal/termsafe"
)

// WriteFindingLines writes one line per finding, root causes first,
// each line after head (the first) or an indent of its width: what a
// person reads first of a failed judgement, however many resources it
// failed on.
func WriteFindingLines(w io.Writer, r *Report, head string) error {
	indent := strings.Repeat(" ", len(head))
	for i := range r.Findings {
		h := indent
		if i == 0 {
			h = head
		}
		if _, err := fmt.Fprintf(w, "%s%s\n", h, r.Findings[i].Headline()); err != nil {
			return err
		}
	}
	return nil
}

// WriteFindings writes what a person needs to see of r's findings, each
// part after a blank line: the token issuer's violations (they void the
// tokens the rest is judged by); the minimal counterexample of the first
// finding on the receiver's history, or its first example when it was
// not shrunk; the first example of every other kind in full; and, for a
// kind found on more resources, how many more and which, not every one
// again: the report and result.json have them all.
func WriteFindings(w io.Writer, r *Report) error {
	if err := explain.WriteIssuer(w, &r.Check); err != nil {
		return err
	}
	shown := -1
	if r.Minimal != nil {
		if _, err := io.WriteString(w, "\n"); err != nil {
			return err
		}
		if err := explain.WriteShrunk(w, r.Minimal); err != nil {
			return err
		}
		shown = r.shrinkTarget()
	}
	for i := range r.Findings {
		f := &r.Findings[i]
		if f.example < 0 {
			continue
		}
		if f.example != shown {
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
			if err := explain.WriteViolation(w, r.Check.Violations[f.example]); err != nil {
				return err
			}
		}
		if f.Count > 1 {
			if err := writeMore(w, f); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeMore says how many more resources show a finding, and names the
// first of them.
func writeMore(w io.Writer, f *Finding) error {
	var names []string
	for _, r := range f.Resources[1:] {
		names = append(names, termsafe.String(r))
	}
	more := ""
	if f.Count > len(f.Resources) {
		more = ", …"
	}
	_, err := fmt.Fprintf(w, "and %d more resources like it (%s): %s%s\n", f.Count-1, f.Kind, strings.Join(names, ", "), more)
	return err
}
