package nemesis

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Step switches one fault at a time offset from the start of the run.
type Step struct {
	At    time.Duration
	Fault string
	On    bool
}

// Script is a scripted schedule: a list of steps, for reproducing one
// exact sequence of faults.
type Script struct{ Steps []Step }

// ParseScript parses steps written as "AT:+fault" (switch on) or
// "AT:-fault" (switch off), separated by commas, e.g.
// "500ms:+pause,2s:-pause,2s:+delay".
func ParseScript(s string) (Script, error) {
	var sc Script
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		at, rest, ok := strings.Cut(part, ":")
		if !ok || len(rest) < 2 || (rest[0] != '+' && rest[0] != '-') {
			return Script{}, fmt.Errorf("nemesis script step %q: want AT:+fault or AT:-fault", part)
		}
		d, err := time.ParseDuration(at)
		if err != nil || d < 0 {
			return Script{}, fmt.Errorf("nemesis script step %q: bad time %q", part, at)
		}
		sc.Steps = append(sc.Steps, Step{At: d, Fault: rest[1:], On: rest[0] == '+'})
	}
	slices.SortStableFunc(sc.Steps, func(a, b Step) int { return int(a.At - b.At) })
	return sc, nil
}

// Run implements Schedule. It returns after the last step; faults keep
// the state it left them in until the fault phase ends. Steps naming a
// fault that is not in the run are caught by Validate.
func (sc Script) Run(ctx context.Context, env Env, faults []Fault) {
	rt := env.Runtime()
	for _, st := range sc.Steps {
		if wait := time.Duration(int64(st.At) - rt.Now()); wait > 0 {
			if rt.Sleep(ctx, wait) != nil {
				return
			}
		}
		for _, f := range faults {
			if f.Name() == st.Fault {
				set(env, f, st.On)
			}
		}
	}
}

// Validate reports the first step that names a fault the run does not
// have, as a *MissingFaultError.
func (sc Script) Validate(faults []Fault) error {
	for _, st := range sc.Steps {
		if !slices.ContainsFunc(faults, func(f Fault) bool { return f.Name() == st.Fault }) {
			return &MissingFaultError{Fault: st.Fault}
		}
	}
	return nil
}

// MissingFaultError is a script step naming a fault that is not among the
// run's faults.
type MissingFaultError struct{ Fault string }

func (e *MissingFaultError) Error() string {
	return fmt.Sprintf("nemesis script names fault %q, which is not among the run's faults", e.Fault)
}

// String is the script in the form ParseScript reads: "500ms:+pause,2s:-pause".
func (sc Script) String() string {
	parts := make([]string, len(sc.Steps))
	for i, st := range sc.Steps {
		sign := "-"
		if st.On {
			sign = "+"
		}
		parts[i] = st.At.String() + ":" + sign + st.Fault
	}
	return strings.Join(parts, ",")
}
