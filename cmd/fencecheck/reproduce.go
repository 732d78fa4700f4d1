package main

import (
	"slices"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fencecheck/fencecheck/internal/cliflags"
)

// outputOnly are the flags that say where results go or how they are
// shown, not what the run does: a reproduce line leaves them out.
var outputOnly = []string{"help", "json", "junit", "no-progress", "no-report", "store", "name", "metrics", "metrics-allow-remote"}

// reproduceLine returns the command line that repeats what cmd ran
// (cliflags.Line): every flag the user gave that shapes the run, and the
// effective values, without the target's credentials.
func reproduceLine(cmd *cobra.Command, effective map[string]string) string {
	return flagLine(cmd.Name(), cmd.Flags(), effective, []string{"calibrate"}, nil) // the run repeats without its twins
}

// flagLine is reproduceLine for `fencecheck name` from the flags of fl:
// the flags in skip are left out as the output-only ones are, and the
// effective values of the flags in also are given although fl lacks them.
func flagLine(name string, fl *pflag.FlagSet, effective map[string]string, skip, also []string) string {
	return cliflags.Line(name, fl, effective, slices.Concat(skip, outputOnly), also)
}
