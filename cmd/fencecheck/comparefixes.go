package main

import (
	"context"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fencecheck/fencecheck/explore"
	"github.com/fencecheck/fencecheck/harness"
	"github.com/fencecheck/fencecheck/workload"
)

func newCompareFixesCommand() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "compare-fixes --target SPEC",
		Short: "Run the same seeded workload once per client strategy and compare what each let through and cost",
		Long:  help("compare-fixes"),
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			f.noteChanged(cmd)
			return f.target.scrub(runCompareFixes(cmd.Context(), cmd, f))
		},
	}
	f.register(cmd.Flags(), cmdCompare)
	return cmd
}

func runCompareFixes(ctx context.Context, cmd *cobra.Command, f runFlags) error {
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	if f.seedGenerated {
		f.seed = harness.RandomSeed() // one seed for every run: the same workload
	}
	progress := !f.noProgress && !f.json && isTerminal(stderr)
	table, err := explore.CompareFixes(ctx, func(ctx context.Context, s workload.Strategy) (harness.Result, error) {
		g := f
		g.clientStrategy = s.String()
		res, err := runOnce(ctx, cmd, g, once{progress: progress, command: func(cfg harness.Config) string {
			return runLine(reproduceLine(cmd, effectiveRunFlags(cfg, g)), s)
		}})
		warn(stderr, res.Warnings)
		return res, err
	})
	if err != nil {
		return err
	}
	return printResult(stdout, f.json, table, table.Summary)
}

// runLine turns compare-fixes's reproduce line into the run command that
// repeats one of its runs.
func runLine(line string, s workload.Strategy) string {
	line = strings.Replace(line, "fencecheck compare-fixes", "fencecheck run", 1)
	if s == workload.Fencing {
		return line
	}
	comment := ""
	if i := strings.Index(line, "  # "); i >= 0 {
		line, comment = line[:i], line[i:]
	}
	return line + " --client-strategy " + s.String() + comment
}
