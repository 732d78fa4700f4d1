package main

import (
	"fmt"
	"strings"

	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/targets/process"

	"github.com/fencecheck/fencecheck/targets"
	"github.com/fencecheck/fencecheck/targets/memory"
)

// openedTarget is a target opened from a spec, with what the harness needs
// to know about it.
type openedTarget struct {
	target targets.Target
	name   string // the spec, safe to print
	// deterministic: the target never blocks outside the harness, so the
	// run can use the seeded simulation.
	deterministic bool
	close         func() error
}

// targetOptions is what opening a target may need besides its spec.
type targetOptions struct {
	http    httpFlags
	workers int
	faults  []nemesis.Fault // the proxy's toxics among them go in front of an HTTP receiver
	child   *process.Child  // the receiver process of --exec
}

// openTarget opens a target spec. Every scheme names its own package; there
// is no registry.
func openTarget(spec string, o targetOptions) (*openedTarget, error) {
	scheme, rest, ok := strings.Cut(spec, "://")
	if !ok {
		return nil, &usageError{fmt.Errorf("--target: %q is not a target spec (want memory://NAME)", spec)}
	}
	switch scheme {
	case "memory":
		t, err := memory.Open(rest)
		if err != nil {
			return nil, &usageError{fmt.Errorf("--target: %w", err)}
		}
		return &openedTarget{target: t, name: spec, deterministic: true, close: func() error { return nil }}, nil
	case "http", "https":
		return openHTTP(spec, o)
	}
	return nil, &usageError{fmt.Errorf("--target: unsupported scheme %q in %q (want memory:// or http://)", scheme, spec)}
}
