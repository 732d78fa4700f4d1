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
	return flagLine(cmd.Name(), cmd.Flags(), effective, []string{"calibrate"}, nil) // the run repeats without its twins
}

// flagLine is reproduceLine for `fencecheck name` from the flags of
// fl: the flags in skip are left out, and the effective values of the
// flags in also are given although fl lacks them (a sweep's line for one
// of its runs: run's --seed, which sweep does not take).
func flagLine(name string, fl *pflag.FlagSet, effective map[string]string, skip, also []string) string {
	type flagArgs struct {
		name   string
		values []string
	}
	var flags []flagArgs
	add := func(name string, values ...string) {
		quoted := make([]string, len(values))
		for i, v := range values {
			quoted[i] = shellescape.Quote(v)
		}
		flags = append(flags, flagArgs{name, quoted})
	}
	masked := false
	args := []string{"fencecheck", name}
	if t := fl.Lookup("target"); t != nil {
		target := redact.Spec(t.Value.String())
		masked = target != t.Value.String()
		args = append(args, "--target", shellescape.Quote(target))
	}
	fl.VisitAll(func(f *pflag.Flag) {
		v, forced := effective[f.Name]
		switch {
		case f.Name == "target" || slices.Contains(outputOnly, f.Name) || slices.Contains(skip, f.Name):
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
		case f.Value.Type() == "bool":
			// "--flag false" would leave "false" as an argument
			add(f.Name + "=" + f.Value.String())
		case f.Value.Type() == "stringSlice":
			add(f.Name, strings.Join(f.Value.(pflag.SliceValue).GetSlice(), ","))
		default:
			add(f.Name, f.Value.String())
		}
	})
	for _, flag := range also {
		if v := effective[flag]; v != "" && fl.Lookup(flag) == nil {
			add(flag, v)
		}
	}
	slices.SortStableFunc(flags, func(a, b flagArgs) int { return strings.Compare(a.name, b.name) })
	for _, f := range flags {
		if len(f.values) == 0 {
			args = append(args, "--"+f.name)
		}
		for _, v := range f.values {
			args = append(args, "--"+f.name, v)
		}
	}
	line := strings.Join(args, " ")
	if masked {
		line += "  # " + redact.Mask + " marks a secret left out: give it again"
	}
	return line
}

// maskHeader is a --header value as a printed command line may show it:
// the name, and xxxxx for the value, which may be a secret.
func maskHeader(line string) string {
	name, _, ok := strings.Cut(line, ":")
	if !ok {
		return redact.Mask
	}
	return name + ": " + redact.Mask
}
