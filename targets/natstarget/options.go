package natstarget

import (
	"fmt"
	"time"
)

// Mode is a built-in way of writing with the token.
type Mode string

// Built-in modes.
const (
	// ModeAtomic reads the entry with its revision, compares the token
	// in Go, and writes with Update(key, value, revision), which the
	// server refuses when the key changed since the read (Create for the
	// first write): correct. A refusal re-reads and decides again.
	ModeAtomic Mode = "atomic"
	// ModeCheckThenSet reads, compares in Go, and writes with Put, which
	// replaces whatever is stored: the article's hazard, which fencecheck
	// must find.
	ModeCheckThenSet Mode = "check-then-set"
)

// Modes lists the built-in modes, for help texts and errors.
func Modes() []Mode { return []Mode{ModeAtomic, ModeCheckThenSet} }

// Options configure a NATS target. DefaultOptions gives the defaults; a
// zero field means zero.
type Options struct {
	// Mode is how writes compare and set.
	Mode Mode
	// AcceptEqual makes the modes accept a repeat of the current token
	// (the accept-equal policy); without it they need a higher one.
	AcceptEqual bool
	// Timeout bounds every request: the dial, each read, each write.
	// It must be positive.
	Timeout time.Duration
	// Command runs the private server of nats://embedded: a program and
	// its arguments, to which the server's configuration file is
	// appended (`fencecheck nats-server`, or `nats-server -c` for a
	// nats-server binary of version 2.10 or later). It runs as a child
	// process, which the receiver faults can crash and freeze. Other
	// specs ignore it.
	Command []string

	_ struct{}
}

// DefaultOptions are the atomic mode and 5s per request: long past a
// healthy loopback server's answer.
func DefaultOptions() Options {
	return Options{Mode: ModeAtomic, Timeout: 5 * time.Second}
}

func (o *Options) validate() error {
	switch {
	case o.Timeout <= 0:
		return fmt.Errorf("options: Timeout must be positive, not %v", o.Timeout)
	case o.Mode != ModeAtomic && o.Mode != ModeCheckThenSet:
		return fmt.Errorf("unknown nats-mode %q (want one of %v)", o.Mode, Modes())
	}
	return nil
}
