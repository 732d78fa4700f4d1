package main

import (
	"slices"
	"strings"

	"al.essio.dev/pkg/shellescape"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fencecheck/fencecheck/internal/redact"
)

// outputOnly are the flags that say where results go or how they are
// shown, not what the run does: a reproduce line leaves them out.
var outputOnly = []string{"help", "json", "junit", "no-progress", "no-report", "store", "name", "metrics", "metrics-allow-remote"}

// reproduceLine returns the command line that repeats what cmd ran: every
// flag the user gave that shapes the run, and the given flags with their
// effective values (the --seed a run drew, the workload's defaults, so that
// the line means the same if a default changes), shell-quoted, the target
// first and without its credentials, --header values masked (with a
// comment that says so). A flag that repeats (--sql-setup) is repeated.
func reproduceLine(cmd *cobra.Command, effective map[string]string) string {
	args := []string{"fencecheck", cmd.Name()}
	add := func(name string, values ...string) {
		for _, v := range values {
			args = append(args, "--"+name, shellescape.Quote(v))
		}
	}
	fl := cmd.Flags()
	masked := false
	if t := fl.Lookup("target"); t != nil {
		spec := redact.Spec(t.Value.String())
		masked = spec != t.Value.String()
		add("target", spec)
	}
	fl.VisitAll(func(f *pflag.Flag) {
		v, forced := effective[f.Name]
		switch {
		case f.Name == "target" || slices.Contains(outputOnly, f.Name):
		case forced && v == "":
			// the effective value is to be left out
		case forced:
			add(f.Name, v)
		case !f.Changed:
		case f.Name == "header":
			for _, h := range f.Value.(pflag.SliceValue).GetSlice() {
				add(f.Name, maskHeader(h))
			}
			masked = true
		case f.Value.Type() == "stringArray":
			add(f.Name, f.Value.(pflag.SliceValue).GetSlice()...)
		case f.Value.Type() == "stringSlice":
			add(f.Name, strings.Join(f.Value.(pflag.SliceValue).GetSlice(), ","))
		default:
			add(f.Name, f.Value.String())
		}
	})
	line := strings.Join(args, " ")
	if masked {
		line += "  # " + redact.Mask + " marks a secret left out: give it again"
	}
	return line
}
