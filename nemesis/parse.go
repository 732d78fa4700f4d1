package nemesis

import (
	"fmt"
	"strings"
)

// Names lists the faults Parse knows.
func Names() []string { return []string{"pause", "delay", "expire", "duplicate"} }

// Parse builds faults from a comma-separated list such as "pause,delay".
// "none" or "" means no faults.
func Parse(list string) ([]Fault, error) { return ParseWith(list) }

// Extra builds faults that live outside this package (the HTTP proxy's
// toxics, a receiver process's faults); New returns false for names it
// does not know.
type Extra struct {
	Names []string
	New   func(name string) (Fault, bool)
	_     struct{} // keyed fields only: the struct may grow
}

// ParseWith is Parse that also knows the extras' faults.
func ParseWith(list string, extras ...Extra) ([]Fault, error) {
	var faults []Fault
	seen := make(map[string]bool)
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if name == "" || name == "none" {
			continue
		}
		if seen[name] {
			return nil, fmt.Errorf("fault %q listed twice", name)
		}
		seen[name] = true
		f, err := newFault(name, extras)
		if err != nil {
			return nil, err
		}
		faults = append(faults, f)
	}
	return faults, nil
}

func newFault(name string, extras []Extra) (Fault, error) {
	switch name {
	case "pause":
		return NewPause(), nil
	case "delay":
		return NewDelay(), nil
	case "expire":
		return NewExpire(), nil
	case "duplicate":
		return NewDuplicate(), nil
	}
	names := Names()
	for _, x := range extras {
		if f, ok := x.New(name); ok {
			return f, nil
		}
		names = append(names[:len(names):len(names)], x.Names...)
	}
	return nil, fmt.Errorf("unknown fault %q (want some of %s)", name, strings.Join(names, ", "))
}

// ProcessExtra is the faults on a receiver process, as Parse's extras
// take them: kill and pause-receiver, acting on proc. With a nil proc
// they are built all the same, and say they are not available
// (Fault.Available), so that the caller words why.
func ProcessExtra(proc Process) Extra {
	return Extra{Names: []string{"kill", "pause-receiver"}, New: func(name string) (Fault, bool) {
		switch name {
		case "kill":
			return NewKill(proc), true
		case "pause-receiver":
			return NewPauseReceiver(proc), true
		}
		return nil, false
	}}
}

// NamesOf lists the faults' names, in order: what Parse reads back.
func NamesOf(faults []Fault) []string {
	names := make([]string, len(faults))
	for i, f := range faults {
		names[i] = f.Name()
	}
	return names
}
