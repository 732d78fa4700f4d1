package redistarget

import (
	"fmt"
	"time"
)

// Mode is a built-in way of writing with the token.
type Mode string

// Built-in modes.
const (
	// ModeAtomic compares the token and writes in one Lua script, which
	// Redis runs without interleaving another command: correct.
	ModeAtomic Mode = "atomic"
	// ModeCheckThenSet reads the stored token (HGET), compares it in Go
	// and writes (HSET) in a separate command: the article's hazard,
	// which fencecheck must find.
	ModeCheckThenSet Mode = "check-then-set"
	// ModeWatch is check-then-set made optimistic: WATCH the key, read
	// and compare, then write inside MULTI/EXEC, which Redis discards when
	// the key changed after the WATCH. Correct.
	ModeWatch Mode = "watch"
)

// Modes lists the built-in modes, for help texts and errors.
func Modes() []Mode { return []Mode{ModeAtomic, ModeCheckThenSet, ModeWatch} }

// Options configure a Redis target. DefaultOptions gives the defaults; a
// zero field means zero.
type Options struct {
	// Mode is a built-in mode. It must be empty when Script is given, and
	// set when it is not.
	Mode Mode
	// Script is the user's own write, a Lua script (its source, not a
	// file name): KEYS[1] the resource's key, ARGV[1] the token in
	// decimal, ARGV[2] the value, ARGV[3] the policy ("strict" or
	// "accept-equal"); it returns 1 when it accepted the write, 0 when it
	// rejected it. See docs/redis-receivers.md.
	Script string
	// ReadScript is the user's own read, a Lua script with KEYS[1] the
	// resource's key, returning nil (never written), {value} or {value,
	// token}. Empty: the reads use the built-in layout, a hash with the
	// fields value and token (HMGET), which a user's script may keep too.
	ReadScript string
	// Workers is the number of concurrent workers the connection pool
	// serves; at least 1.
	Workers int
	// AcceptEqual makes the built-in modes accept a repeat of the current
	// token (the accept-equal policy); without it they need a higher one.
	// A user's script is told the policy in ARGV[3].
	AcceptEqual bool
	// Timeout bounds every command: the dial, the wait for a pooled
	// connection, each read and write on the socket. It must be positive.
	Timeout time.Duration

	_ struct{}
}

// DefaultOptions are the atomic mode with a pool for the harness's 8
// workers and 5s per command: long past a healthy loopback server's
// answer.
func DefaultOptions() Options {
	return Options{Mode: ModeAtomic, Workers: 8, Timeout: 5 * time.Second}
}

func (o *Options) validate() error {
	switch {
	case o.Workers < 1:
		return fmt.Errorf("options: Workers must be at least 1, not %d", o.Workers)
	case o.Timeout <= 0:
		return fmt.Errorf("options: Timeout must be positive, not %v", o.Timeout)
	case o.Script == "" && o.Mode == "":
		return fmt.Errorf("options: no Mode and no Script: set one")
	case o.Script != "" && o.Mode != "":
		return fmt.Errorf("redis-mode %s and your own script exclude each other", o.Mode)
	case o.Script == "" && o.ReadScript != "":
		return fmt.Errorf("a read script needs your own write script: the built-in modes read their own layout")
	case o.Script == "" && o.Mode != ModeAtomic && o.Mode != ModeCheckThenSet && o.Mode != ModeWatch:
		return fmt.Errorf("unknown redis-mode %q (want one of %v)", o.Mode, Modes())
	}
	return nil
}

// policy is what ARGV[3] tells a script.
func (o *Options) policy() string {
	if o.AcceptEqual {
		return "accept-equal"
	}
	return "strict"
}
