// Package fencetest runs fencecheck from a service's own go test: the
// harness against the service's receiver, failing the test with the
// explanation and the minimal counterexample when the receiver accepts an
// obsolete token, and keeping the run directory for a person to look at.
//
//	func TestReceiverRejectsStaleTokens(t *testing.T) {
//		cfg := fencetest.Config(t, myReceiver)
//		cfg.Duration = 5 * time.Second
//		fencetest.Run(t, cfg)
//	}
//
// It is the only package of fencecheck that imports testing; harness.Run
// never does.
package fencetest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"al.essio.dev/pkg/shellescape"

	"github.com/fencecheck/fencecheck/check"
	"github.com/fencecheck/fencecheck/harness"
	"github.com/fencecheck/fencecheck/internal/redact"
	"github.com/fencecheck/fencecheck/lease"
	leasespec "github.com/fencecheck/fencecheck/lease/spec"
	"github.com/fencecheck/fencecheck/targets"
)

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
func Config(t testing.TB, target targets.Target) harness.Config {
	cfg := harness.DefaultConfig()
	cfg.Target, cfg.TargetName, cfg.Seed = target, "fencetest://"+t.Name(), 1
	cfg.StoreDir = os.Getenv("FENCETEST_STORE")
	if cfg.StoreDir == "" {
		cfg.StoreDir = filepath.Join(os.TempDir(), "fencecheck-runs")
	}
	return cfg
}

// Run runs the harness with cfg and fails t unless the fencing invariant
// held and every gate was met. It logs the run directory, where
// report.html, timeline.html and the history are kept, and returns the
// result for further assertions. The run's Command is the go test line
// that runs the test again.
//
// When $FENCETEST_LEASES names a lease spec and cfg has neither Leases nor
// Issuer, the run takes its leases from that issuer, on the real clock
// (a deterministic run becomes a real-time one, and says so in the log).
func Run(t testing.TB, cfg harness.Config) harness.Result {
	t.Helper()
	env := ""
	if spec := os.Getenv(LeasesEnv); spec != "" && spec != leasespec.Local && cfg.Leases == nil && cfg.Issuer == nil {
		cfg.Issuer = Leases(t, spec)
		if cfg.Issuer == nil {
			return harness.Result{}
		}
		if cfg.Deterministic {
			t.Logf("fencetest: %s=%s: the run is on the real clock, not the deterministic simulation", LeasesEnv, cfg.Issuer.Name())
			cfg.Deterministic = false
		}
		env = LeasesEnv + "=" + shellescape.Quote(redact.Spec(spec)) + " "
	}
	cfg.Command = env + reproduceLine(t.Name(), cfg.Seed)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, err := harness.Run(ctx, cfg)
	if err != nil {
		t.Fatalf("fencetest: run against %s: %v", cfg.TargetName, err)
		return res
	}
	where := fmt.Sprintf("run directory %s (report: %s)", res.Dir, filepath.Join(res.Dir, "report.html"))
	if res.Verdict == check.Held {
		t.Logf("fencetest: %s held: %s; %d stale writes exercised; %s", cfg.TargetName, res.Reason, res.Coverage.StaleWrites, where)
		return res
	}
	t.Errorf("fencetest: %s %s: %s\n%s\n%s", cfg.TargetName, res.Verdict, res.Reason, where, res.Summary())
	return res
}

// Leases returns the token issuer a lease spec names (local, etcd,
// etcd://HOST:PORT,…, redis[?SETTINGS], redis://…, postgres[?SETTINGS],
// postgres://…; see docs/leases.md), for Config.Issuer, and fails t when
// the spec is bad. "local" is nil: the
// run's own lease service. The spec "etcd" starts its members inside the
// test binary: they cannot be crashed or paused (issuer faults need the
// fencecheck command).
func Leases(t testing.TB, spec string) lease.Issuer {
	t.Helper()
	iss, err := leasespec.Parse(spec, leasespec.DefaultOptions())
	if err != nil {
		t.Fatalf("fencetest: lease spec: %v", err)
		return nil
	}
	return iss
}

// reproduceLine is the go test command that runs the named test again:
// the same test, so the same Options and, unless the test varies it, the
// same seed (a deterministic run then repeats its history byte for byte).
func reproduceLine(test string, seed uint64) string {
	parts := strings.Split(test, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return fmt.Sprintf("go test -run '%s' %s  # fencetest seed %d", strings.Join(parts, "/"), packageDir(), seed)
}

// packageDir is the test's package as go test names it, relative to its
// module (go test runs a package's tests in its directory); "." when the
// module cannot be found.
func packageDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			rel, err := filepath.Rel(dir, wd)
			if err != nil || rel == "." {
				return "."
			}
			return "./" + filepath.ToSlash(rel)
		}
		if filepath.Dir(dir) == dir {
			return "."
		}
	}
}
