package fencetest

import (
	"net/http"

	"github.com/fencecheck/fencecheck/harness"
	"github.com/fencecheck/fencecheck/targets"
	"github.com/fencecheck/fencecheck/targets/httptarget"
)

// Options say how Handler tests a handler. DefaultOptions gives the
// defaults; a zero field means zero.
type Options struct {
	// Synctest runs the whole run inside a testing/synctest bubble
	// (RunSynctest): the handler's goroutines, sleeps and timers, the
	// workers, the faults and the lease service all run on the bubble's
	// virtual clock, so a 10 s run takes a fraction of a second of wall
	// time, and the same Seed gives the same history byte for byte
	// unless the handler's own goroutines race (with each other, or
	// with the harness at one virtual instant). The
	// handler must wait on nothing outside the bubble: no socket (a
	// database, another server), no process, no goroutine or channel it
	// started before the test called Handler; each run needs a handler of
	// its own, since a seeded run's resources are named from the seed.
	// t must be a *testing.T, or a T with a method TestingT() *testing.T
	// that gives the one it wraps.
	Synctest bool
	// Seed drives every random choice of the run; -fencetest.seed
	// replaces it, and what Config sets.
	Seed uint64
	// Adapter is an adapter file (httptarget.LoadAdapter) for a handler
	// with an API of its own, relative to the test's package directory;
	// empty, the default protocol of docs/http-protocol.md, which the
	// reference receiver serves (targets/httptarget/receiver).
	Adapter string
	// Config, when set, changes the run's configuration last, after
	// Config(t, target), Seed and the rest of Options: its Duration,
	// Workers, Faults…
	Config func(*harness.Config)

	_ struct{} // keyed fields only: Options{Synctest: true}
}

// DefaultOptions are a real-time run with seed 1, in the default
// protocol, with Config's configuration.
func DefaultOptions() Options {
	return Options{Seed: 1}
}

// inProcessBase is the base URL of an in-process handler's requests.
const inProcessBase = "http://in-process"

// Handler tests h, an HTTP receiver in the test's process, through the
// HTTP target's own requests, adapter and outcome rules, with no socket
// between them (httptarget.HandlerTransport): what it tests is what
// fencecheck run --target http://… tests over the network. It runs
// Config(t, target) changed by opts, fails t as Run does and returns
// the result.
func Handler(t T, h http.Handler, opts Options) harness.Result {
	t.Helper()
	tgt, err := HandlerTarget(h, opts)
	if err != nil {
		t.Fatalf("fencetest: %v", err)
		return harness.Result{}
	}
	cfg := Config(t, tgt)
	cfg.Runtime.Seed = opts.Seed
	if opts.Config != nil {
		opts.Config(&cfg)
	}
	return run(t, cfg, opts.Synctest)
}

// HandlerTarget is the target Handler tests h through: the HTTP target's
// requests, with opts.Adapter, delivered to h in the process. Sweep needs
// one per run (SweepOptions.NewTarget), each with a handler of its own.
func HandlerTarget(h http.Handler, opts Options) (targets.Target, error) {
	o := httptarget.DefaultOptions()
	o.Transport = httptarget.HandlerTransport(h)
	if opts.Adapter != "" {
		a, err := httptarget.LoadAdapter(opts.Adapter)
		if err != nil {
			return nil, err
		}
		o.Adapter = a
	}
	return httptarget.New(inProcessBase, o)
}
