package main

import (
	"fmt"
	"time"

	"al.essio.dev/pkg/shellescape"
	"github.com/spf13/cobra"

	"github.com/fencecheck/fencecheck/harness"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/report"
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
func (g *checkGates) write(paths []string, h *histories.History, rep *report.Checked, f checkFlags) error {
	if g.junit != "" {
		if err := report.WriteJUnitFile(g.junit, rep.Suite(h)); err != nil {
			return err
		}
	}
	if g.reportDir == "" {
		return nil
	}
	command := fmt.Sprintf("fencecheck check %s --policy %s --model %s --checker %s", shellescape.QuoteCommand(paths), f.policy, f.model, f.checker)
	if err := rep.WriteDir(g.reportDir, h, command); err != nil {
		return fmt.Errorf("--report %s: %w", g.reportDir, err)
	}
	return nil
}
