package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"al.essio.dev/pkg/shellescape"
	"github.com/spf13/cobra"

	"github.com/fencecheck/fencecheck/harness"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/report"
	"github.com/fencecheck/fencecheck/runstore"
)

// checkGates are check's outputs beyond the verdict: the minimal
// counterexample, the report directory and the JUnit file.
type checkGates struct {
	shrinkTimeout time.Duration
	reportDir     string
	junit         string
}

func (g *checkGates) flags(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.DurationVar(&g.shrinkTimeout, "shrink-timeout", harness.DefaultConfig().Gates.ShrinkTimeout, "bound the search for a minimal counterexample of a violation (0: do not shrink)")
	fl.StringVar(&g.reportDir, "report", "", "write report.html, timeline.html and, for a violation, minimal.html and minimal.jsonl into this directory")
	fl.StringVar(&g.junit, "junit", "", "write the verdict as JUnit XML to this file (one test case per resource)")
}

// write writes the report directory and the JUnit file that were asked for.
func (g *checkGates) write(paths []string, h *histories.History, rep checkReport, f checkFlags) error {
	path := strings.Join(paths, " ")
	if g.junit != "" {
		props := []report.Fact{{Name: "history", Value: path}}
		if len(paths) > 1 {
			props = []report.Fact{{Name: "histories", Value: path}}
		}
		suite := report.Suite{Name: "fencecheck check " + path, Properties: props,
			Cases: report.CheckCases(rep.Check, report.Resources(h), rep.Minimal)}
		if err := report.WriteJUnitFile(g.junit, suite); err != nil {
			return err
		}
	}
	if g.reportDir == "" {
		return nil
	}
	if err := os.MkdirAll(g.reportDir, 0o755); err != nil {
		return fmt.Errorf("--report: %w", err)
	}
	opts, _ := f.options()
	in := report.Input{
		Title: path, Verdict: rep.Verdict, Reason: rep.Reason, History: h, Check: rep.Check,
		Options: opts, Minimal: rep.Minimal, Kinds: rep.Findings,
		Command: fmt.Sprintf("fencecheck check %s --policy %s --model %s --checker %s", quoteAll(paths), f.policy, f.model, f.checker),
	}
	if rep.Minimal != nil {
		in.Files = []string{runstore.Minimal, runstore.MinimalHistory}
	}
	if _, err := report.Write(g.reportDir, in, report.DefaultLimits()); err != nil {
		return fmt.Errorf("--report %s: %w", g.reportDir, err)
	}
	return nil
}

// quoteAll is paths shell-quoted, separated by spaces.
func quoteAll(paths []string) string {
	q := make([]string, len(paths))
	for i, p := range paths {
		q[i] = shellescape.Quote(p)
	}
	return strings.Join(q, " ")
}
