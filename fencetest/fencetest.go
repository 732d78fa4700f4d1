// Package fencetest runs fencecheck from a service's own go test: the
// harness against the service's receiver, failing the test with the
// explanation and the minimal counterexample when the receiver accepts an
// obsolete token, and keeping the run directory for a person to look at.
//
//	func TestReceiverRejectsStaleTokens(t *testing.T) {
//		cfg := fencetest.Config(t, myReceiver)
//		cfg.Workload.Duration = 5 * time.Second
//		fencetest.Run(t, cfg)
//	}
//
// A receiver that is an http.Handler is tested in the process, through
// the HTTP target's own requests and outcome rules, and with Synctest on
// the virtual clock of a testing/synctest bubble, where ten seconds of run
// take a fraction of one:
//
//	func TestHandlerRejectsStaleTokens(t *testing.T) {
//		o := fencetest.DefaultOptions()
//		o.Synctest = true
//		fencetest.Handler(t, myHandler, o)
//	}
//
// A receiver a target spec names (postgres://…, redis://…, http://…) is
// opened as fencecheck run --target opens it, with network faults in
// front of it when asked for, and closed when the test ends (Target):
//
//	o := targetspec.DefaultOptions()
//	o.Faults = []nemesis.Fault{nemesis.NewPause(), tcpproxy.NewReset()}
//	tgt := fencetest.Target(t, "postgres://postgres@127.0.0.1:5432/test", o)
//	fencetest.Run(t, fencetest.TargetConfig(t, tgt, o.Faults))
//
// A failing test prints the go test line that runs it again with the same
// seed (-fencetest.seed, see SeedFlag). It is the only package of
// fencecheck that imports testing; harness.Run never does.
package fencetest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"al.essio.dev/pkg/shellescape"

	"github.com/fencecheck/fencecheck/harness"
	"github.com/fencecheck/fencecheck/internal/redact"
	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/lease"
	leasespec "github.com/fencecheck/fencecheck/lease/spec"
	"github.com/fencecheck/fencecheck/targets"
)

// T is what fencetest needs of a test: the part of testing.TB it calls,
// so that a *testing.T, a *testing.B or any testing.TB will do, and so
// will a stand-in, such as an example's (see example_test.go).
type T interface {
	Helper()
	Name() string
	Logf(format string, args ...any)
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
	// Context ends when the test does; the run is interrupted then.
	Context() context.Context
}

// LeasesEnv names the environment variable that gives every Run without
// a lease service of its own a real token issuer, as a lease spec
// (docs/leases.md): FENCETEST_LEASES=etcd go test ./... runs a test suite
// with tokens from an embedded etcd cluster, without changing a test.
const LeasesEnv = "FENCETEST_LEASES"

// Config is the run Run makes against target unless the test changes it:
// harness.DefaultConfig (pause and delay faults, and a gate of one stale
// write: a pass that never sent a stale write proves nothing), named
// after the test, with seed 1 so that a failure reproduces, in the run
// store $FENCETEST_STORE, else fencecheck-runs in the system's temporary
// directory. Runs are kept after the test, passed or failed.
func Config(t T, target targets.Target) harness.Config {
	cfg := harness.DefaultConfig()
	cfg.Target.Receiver, cfg.Target.Name, cfg.Runtime.Seed = target, "fencetest://"+t.Name(), DefaultOptions().Seed
	cfg.Store.Dir = os.Getenv("FENCETEST_STORE")
	if cfg.Store.Dir == "" {
		cfg.Store.Dir = filepath.Join(os.TempDir(), "fencecheck-runs")
	}
	return cfg
}

// Run runs the harness with cfg and fails t unless the fencing invariant
// held and every gate was met. It logs the run directory, where
// report.html, timeline.html and the history are kept, and returns the
// result for further assertions. The run's Command is the go test line
// that runs the test again; -fencetest.seed replaces cfg.Runtime.Seed.
//
// When $FENCETEST_LEASES names a lease spec and cfg has neither Leases nor
// Issuer, the run takes its leases from that issuer, on the real clock
// (a deterministic run becomes a real-time one, and says so in the log).
func Run(t T, cfg harness.Config) harness.Result {
	t.Helper()
	return run(t, cfg, false)
}

// RunSynctest is Run inside a testing/synctest bubble, for a target that
// waits on nothing outside the process (the memory targets, an
// in-process handler; not a database, a server or a process): the
// workers, the faults, the lease service and the target's own goroutines
// run on the bubble's virtual clock, so a run of cfg.Duration takes only
// the time its work takes, and the same seed gives the same history byte
// for byte unless the target's own goroutines race (see
// harness.Runtime.VirtualClock). t must be a *testing.T, or wrap one (see
// Options.Synctest). $FENCETEST_LEASES, whose issuers talk to servers,
// makes it a real-time Run, and says so in the log.
func RunSynctest(t T, cfg harness.Config) harness.Result {
	t.Helper()
	return run(t, cfg, true)
}

// run is Run, inside a bubble when bubbled.
func run(t T, cfg harness.Config, bubbled bool) harness.Result {
	t.Helper()
	env, ok := envLeases(t, &cfg, &bubbled)
	if !ok {
		return harness.Result{}
	}
	if seed, ok := seedOverride(); ok {
		cfg.Runtime.Seed = seed
	}
	cfg.Output.Command = env + reproduceLine(t.Name(), cfg.Runtime.Seed)
	var res harness.Result
	var err error
	if bubbled {
		res, err = runInBubble(t, cfg)
	} else {
		res, err = harness.Run(t.Context(), cfg)
	}
	if err != nil {
		t.Fatalf("fencetest: run against %s: %v", cfg.Target.Name, err)
		return res
	}
	where := fmt.Sprintf("run directory %s (report: %s)", res.Dir, filepath.Join(res.Dir, "report.html"))
	if res.Verdict == judge.Held {
		t.Logf("fencetest: %s held: %s; %d stale writes exercised; seed %d; %s", cfg.Target.Name, res.Reason, res.Coverage.StaleWrites, cfg.Runtime.Seed, where)
		return res
	}
	t.Errorf("fencetest: %s %s: %s\n%s\n%s", cfg.Target.Name, res.Verdict, res.Reason, where, res.Summary())
	return res
}

// envLeases gives cfg the token issuer $FENCETEST_LEASES names, when it
// names one and cfg has no lease service of its own; the run is then on
// the real clock, not in the simulation or a bubble (*bubbled). It
// returns what the go test line that repeats the run starts with, and
// false when the spec is bad and t was failed.
func envLeases(t T, cfg *harness.Config, bubbled *bool) (string, bool) {
	t.Helper()
	spec := os.Getenv(LeasesEnv)
	if spec == "" || spec == leasespec.Local || cfg.Leases.Service != nil || cfg.Leases.Issuer != nil {
		return "", true
	}
	cfg.Leases.Issuer = Leases(t, spec)
	if cfg.Leases.Issuer == nil {
		return "", false
	}
	if cfg.Runtime.Deterministic || *bubbled {
		t.Logf("fencetest: %s=%s: the run is on the real clock, not the deterministic simulation or a synctest bubble", LeasesEnv, cfg.Leases.Issuer.Name())
		cfg.Runtime.Deterministic, *bubbled = false, false
	}
	return LeasesEnv + "=" + shellescape.Quote(redact.Spec(spec)) + " ", true
}

// Leases returns the token issuer a lease spec names (local, etcd,
// etcd://HOST:PORT,…, redis[?SETTINGS], redis://…, postgres[?SETTINGS],
// postgres://…; see docs/leases.md), for Config.Leases.Issuer, and fails t when
// the spec is bad. "local" is nil: the
// run's own lease service. The spec "etcd" starts its members inside the
// test binary: they cannot be crashed or paused (issuer faults need the
// fencecheck command).
func Leases(t T, spec string) lease.Issuer {
	t.Helper()
	iss, err := leasespec.Parse(spec, leasespec.DefaultOptions())
	if err != nil {
		t.Fatalf("fencetest: lease spec: %v", err)
		return nil
	}
	return iss
}
