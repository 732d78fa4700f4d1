package harness

import (
	"strings"
)

// A Setting is a part of a run's configuration that advice or a finding
// points at, in Config's terms: a field, and for Faults the fault.
type Setting struct {
	// Field is a Config field: "Faults", "RequireExclusive", or "Target"
	// for the kind of target the run needs.
	Field string
	// Value is the fault for Faults ("delay", as nemesis names it), the
	// kind of target for Target ("process": a receiver process the run
	// can crash and start again, targets/process) and the kind of issuer
	// for Issuer ("servers": one whose servers fencecheck started itself,
	// lease.Servers).
	Value string
}

// The settings the harness points at.
var (
	requireExclusive = Setting{Field: "Gates.RequireExclusive"}
	stopAtViolation  = Setting{Field: "Gates.StopOnViolation"}
	processTarget    = Setting{Field: "Target.Receiver", Value: "process"}
	// issuerServers is an issuer whose servers fencecheck runs itself,
	// which the issuer faults can crash and freeze.
	issuerServers = Setting{Field: "Leases.Issuer", Value: "servers"}
)

func addFault(name string) Setting { return Setting{Field: "Nemesis.Faults", Value: name} }

// Terms words settings as a caller of the harness changes them: the CLI
// as its flags ("--nemesis delay"), Go code as Config's fields.
type Terms interface {
	Setting(Setting) string
}

// ConfigTerms words settings as Go code sets them on a Config:
// "nemesis.Delay to Config.Nemesis.Faults", "Config.Gates.RequireExclusive".
type ConfigTerms struct{}

// Setting implements Terms.
func (ConfigTerms) Setting(s Setting) string {
	switch {
	case s.Field == "Nemesis.Faults":
		return "nemesis." + goName(s.Value) + " to Config.Nemesis.Faults"
	case s.Field == "Target.Receiver" && s.Value == "process":
		return "a process.Target as Config.Target.Receiver"
	case s.Field == "Leases.Issuer" && s.Value == "servers":
		return "an embedded.Issuer with Options.Command as Config.Leases.Issuer"
	}
	return "Config." + s.Field
}

// goName is a fault's Go type as nemesis names it: "pause-receiver" is
// PauseReceiver.
func goName(fault string) string {
	var b strings.Builder
	for _, part := range strings.Split(fault, "-") {
		if part != "" {
			b.WriteString(strings.ToUpper(part[:1]) + part[1:])
		}
	}
	return b.String()
}

// add words advice to add settings together: "add --exec and --nemesis
// kill".
func add(t Terms, settings []Setting) string {
	words := make([]string, len(settings))
	for i, s := range settings {
		words[i] = t.Setting(s)
	}
	return "add " + strings.Join(words, " and ")
}
