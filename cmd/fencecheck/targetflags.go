package main

import (
	"context"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/targets"
	"github.com/fencecheck/fencecheck/targets/process"
	"github.com/fencecheck/fencecheck/targets/redistarget"
)

// targetHelp is the --target flag's help, the same for every command.
const targetHelp = "the receiver under test: memory://fenced, memory://unfenced, memory://check-then-set, memory://accept-equal, sqlite:///path/to.db, sqlite://:memory:, postgres://user@127.0.0.1:5432/db, mysql://user:pass@127.0.0.1:3306/db, redis://[user:pass@]127.0.0.1:6379/0 (or rediss:// for TLS), http://HOST:PORT"

// targetFlags are the flags of every command that takes a target (run,
// verify, compare-fixes): the spec and the options of every kind of
// target. They are registered in one place so that no command lacks an
// option another has: a receiver that needs --sql-write to be reached by
// run needs it as much to be verified.
type targetFlags struct {
	spec     string
	maxToken string     // --max-token as given
	http     httpFlags  // HTTP targets, --exec and the receiver process
	sql      sqlFlags   // SQL targets
	redis    redisFlags // Redis targets
}

func (t *targetFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&t.spec, "target", "", targetHelp)
	fl.StringVar(&t.maxToken, "max-token", "", maxTokenHelp)
	t.http.register(fl)
	t.sql.register(fl)
	t.redis.register(fl)
}

// scrub removes the target's credentials from err, about to be printed.
func (t *targetFlags) scrub(err error) error { return t.http.scrub(t.spec, err) }

// required reports a missing --target.
func (t *targetFlags) required() error {
	if t.spec == "" {
		return &usageError{fmt.Errorf("--target: required")}
	}
	return nil
}

// child returns the receiver process of --exec, or nil.
func (t *targetFlags) child() (*process.Child, error) { return t.http.child(t.spec) }

// openWith is what a command adds to the target flags when it opens the
// target: how many workers will use it at once, whether equal tokens are
// accepted, the faults of the run (the network's act in front of the
// receiver) and the receiver process of --exec.
type openWith struct {
	workers     int
	acceptEqual bool
	faults      []nemesis.Fault
	child       *process.Child
}

// open opens the target the flags describe, with its token domain: the
// smaller of --max-token and what the target declares.
func (t *targetFlags) open(ctx context.Context, w openWith) (*openedTarget, error) {
	declared, err := parseMaxToken(t.maxToken)
	if err != nil {
		return nil, err
	}
	opts := targetOptions{http: t.http, workers: w.workers, faults: w.faults, child: w.child,
		sql: t.sql.options(w.workers, w.acceptEqual), sqlSet: t.sql.given(), redisSet: t.redis.given()}
	if redistarget.IsSpec(t.spec) {
		if opts.redis, err = t.redis.options(w.workers, w.acceptEqual); err != nil {
			return nil, err
		}
	}
	o, err := openTarget(ctx, t.spec, opts)
	if err != nil {
		return nil, err
	}
	o.maxToken = targets.Domain(o.target, declared)
	return o, nil
}
