package cliflags

import (
	"slices"
	"strings"

	"al.essio.dev/pkg/shellescape"
	"github.com/spf13/pflag"

	"github.com/fencecheck/fencecheck/internal/redact"
)

// Line returns the command line `fencecheck name …` that repeats what a
// command ran from the flags of fl: every flag the user gave, and the
// flags in effective with their effective values (the --seed a run drew,
// the workload's defaults, so that the line means the same if a default
// changes; an empty value leaves the flag out), sorted by name and
// shell-quoted. The flags in skip are left out; the effective values of
// the flags in also are given although fl lacks them (a sweep's line for
// one of its runs: run's --seed, which sweep does not take). A flag that
// repeats (--sql-setup) is repeated.
//
// Secrets stay out: a flag named target comes first, without its
// credentials (redact.Spec), and the values of the flag named header are
// masked (MaskHeader); the line then ends with a comment that says so.
func Line(name string, fl *pflag.FlagSet, effective map[string]string, skip, also []string) string {
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
		case f.Name == "target" || slices.Contains(skip, f.Name):
		case forced && v == "":
			// the effective value is to be left out
		case forced:
			add(f.Name, v)
		case !f.Changed:
		case f.Name == "header":
			for _, h := range f.Value.(pflag.SliceValue).GetSlice() {
				add(f.Name, MaskHeader(h))
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

// MaskHeader is a --header value as a printed command line may show it:
// the name, and redact.Mask for the value, which may be a secret.
func MaskHeader(line string) string {
	name, _, ok := strings.Cut(line, ":")
	if !ok {
		return redact.Mask
	}
	return name + ": " + redact.Mask
}
