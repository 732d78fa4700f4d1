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
