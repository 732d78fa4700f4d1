package main

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/pflag"

	"github.com/fencecheck/fencecheck/targets/redistarget"
)

// redisFlags are the options of Redis targets.
type redisFlags struct {
	mode       string
	script     string // a file
	readScript string // a file
	timeout    time.Duration
}

func (r *redisFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&r.mode, "redis-mode", "", "Redis targets: built-in writes, atomic (one Lua script compares and sets; the default), watch (WATCH/MULTI/EXEC) or check-then-set (GET, compare, SET: broken on purpose)")
	fl.StringVar(&r.script, "redis-script", "", "Redis targets: FILE, your own Lua write script: KEYS[1] the resource's key, ARGV[1] the token, ARGV[2] the value; returns 1 accepted, 0 rejected (see docs/redis-receivers.md)")
	fl.StringVar(&r.readScript, "redis-read-script", "", "Redis targets: FILE, your own Lua read script: KEYS[1] the resource's key; returns nil, {value} or {value, token} (default: HMGET of the fields value and token)")
	fl.DurationVar(&r.timeout, "redis-timeout", redistarget.DefaultOptions().Timeout, "Redis targets: deadline of every command")
}

// given reports whether any Redis-only flag was set.
func (r *redisFlags) given() bool {
	return r.mode != "" || r.script != "" || r.readScript != ""
}

// options reads the script files and returns the target's options;
// targets/spec sets the workers and the policy.
func (r *redisFlags) options() (redistarget.Options, error) {
	o := redistarget.DefaultOptions()
	if r.mode != "" || r.script != "" {
		// The default mode unless --redis-mode or a script is given; the
		// target says what is wrong with a mode beside a script.
		o.Mode = redistarget.Mode(r.mode)
	}
	for _, f := range []struct {
		flag, file string
		dest       *string
	}{{"--redis-script", r.script, &o.Script}, {"--redis-read-script", r.readScript, &o.ReadScript}} {
		if f.file == "" {
			continue
		}
		b, err := os.ReadFile(f.file)
		if err != nil {
			return o, &usageError{fmt.Errorf("%s: %w", f.flag, err)}
		}
		*f.dest = string(b)
	}
	o.Timeout = r.timeout
	return o, nil
}
