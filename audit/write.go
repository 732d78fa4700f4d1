package audit

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/fencecheck/fencecheck/internal/files"
	"github.com/fencecheck/fencecheck/internal/termsafe"
	"github.com/fencecheck/fencecheck/report"
	"github.com/fencecheck/fencecheck/runstore"
)

// The files an audit writes into its directory: its report as
// audit.json (runstore.Audit) and audit.html, and summary.txt.
const (
	JSONFile    = runstore.Audit
	PageFile    = runstore.AuditPage
	SummaryFile = runstore.Summary
)

// writeFiles writes the report's files into dir.
func writeFiles(dir string, rep *Report) error {
	for name, write := range map[string]func(io.Writer) error{
		JSONFile:    rep.WriteJSON,
		SummaryFile: rep.WriteText,
		PageFile:    rep.WritePage,
	} {
		if err := files.Write(filepath.Join(dir, name), "audit "+name, write); err != nil {
			return err
		}
	}
	return nil
}

// WriteJSON writes audit.json.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteText writes the audit as a person reads it at a terminal: a table
// of the steps (step, result, time, the first line of its evidence),
// each step's evidence in full, and the verdict.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "audit       %s\n", termsafe.String(r.Target))
	if r.Issuer != "" {
		fmt.Fprintf(&b, "issuer      %s\n", termsafe.String(r.Issuer))
	}
	if r.Budget > 0 {
		fmt.Fprintf(&b, "budget      %s, %s spent\n", r.Budget, r.Elapsed.Round(time.Second))
	}
	b.WriteString("\n")
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "step\tresult\ttime\twhat")
	for _, s := range r.Steps {
		fmt.Fprintf(tw, "%d %s\t%s\t%s\t%s\n", s.Number, s.Name, s.Result, s.Elapsed.Round(100*time.Millisecond), termsafe.String(s.Reason))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, s := range r.Steps {
		fmt.Fprintf(&b, "\n%d %s: %s\n", s.Number, s.Name, s.Result)
		if s.Cut != "" {
			fmt.Fprintf(&b, "  cut: %s\n", termsafe.String(s.Cut))
		}
		for _, e := range s.Evidence {
			fmt.Fprintf(&b, "  %s\n", termsafe.String(e))
		}
		for _, run := range s.Runs {
			fmt.Fprintf(&b, "  run: %s\n", filepath.Join(r.Dir, run))
		}
	}
	fmt.Fprintf(&b, "\nverdict     %s: %s\n", strings.ToUpper(string(r.Verdict)), termsafe.String(r.Reason))
	if r.Dir != "" {
		fmt.Fprintf(&b, "report      %s\n", filepath.Join(r.Dir, PageFile))
	}
	if r.Command != "" {
		fmt.Fprintf(&b, "reproduce   %s\n", r.Command)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// JUnit is the audit as a JUnit suite, one case per step: a step that
// found a violation fails, one that was inconclusive, cut or could not
// test what it is for errs, one that informs passes.
func (r *Report) JUnit() report.Suite {
	s := report.Suite{Name: "fencecheck audit " + r.Target, Properties: []report.Fact{{Name: "target", Value: r.Target},
		{Name: "issuer", Value: r.Issuer}, {Name: "audit", Value: r.Dir}, {Name: "verdict", Value: string(r.Verdict)}}}
	for _, st := range r.Steps {
		c := report.Case{Name: fmt.Sprintf("%d %s", st.Number, st.Name), Classname: "audit", Time: st.Elapsed}
		text := strings.Join(st.Evidence, "\n")
		switch st.Result {
		case "violated":
			c.Failure = &report.Failure{Type: "violation", Message: st.Reason, Text: text}
		case "inconclusive", "interrupted", "cut", "not tested":
			c.Error = &report.Failure{Type: st.Result, Message: st.Reason, Text: text}
		}
		s.Cases = append(s.Cases, c)
	}
	return s
}
