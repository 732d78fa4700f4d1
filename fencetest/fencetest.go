// Package fencetest runs fencecheck from a service's own go test: the
// harness against the service's receiver, failing the test with the
// explanation and the minimal counterexample when the receiver accepts an
// obsolete token, and keeping the run directory for a person to look at.
//
//	func TestReceiverRejectsStaleTokens(t *testing.T) {
//		fencetest.Run(t, myReceiver, fencetest.Options{Duration: 5 * time.Second, MinStale: 1})
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
	"time"

	"github.com/fencecheck/fencecheck/check"
	"github.com/fencecheck/fencecheck/harness"
	"github.com/fencecheck/fencecheck/model"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/targets"
)

// Options configure a run. Zero fields take the harness's defaults.
type Options struct {
	Name      string        // names the target in the run store and the report; default the test's name
	Workers   int           // default 8
	Resources int           // default 4
	Duration  time.Duration // default 5s unless Ops is set
	Ops       int           // stop after this many operations
	LeaseTTL  time.Duration // default 100ms
	// Nemesis lists the faults, as for fencecheck run --nemesis; default
	// "pause,delay", "none" for none.
	Nemesis string
	Seed    uint64 // default 1, so that a failure reproduces
	// Deterministic runs under the seeded simulation; only for targets
	// that never block outside the harness, such as the memory targets.
	Deterministic    bool
	Policy           model.Policy
	RequireExclusive bool
	// MinStale fails the test unless at least this many stale writes were
	// exercised: a pass that never sent a stale write proves nothing.
	// Default: harness.DefaultMinStale of the faults (one, when the
	// nemesis pauses or delays).
	MinStale int
	// Store is the run store; default $FENCETEST_STORE, else a directory
	// fencecheck-runs in the system's temporary directory. Runs are kept
	// after the test, passed or failed.
	Store string
	_     struct{}
}

// Run runs the harness against target and fails t unless the fencing
// invariant held and every gate was met. It logs the run directory, where
// report.html, timeline.html and the history are kept, and returns the
// result for further assertions.
func Run(t testing.TB, target targets.Target, o Options) harness.Result {
	t.Helper()
	cfg, err := o.config(t, target)
	if err != nil {
		t.Fatalf("fencetest: %v", err)
		return harness.Result{}
	}
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

func (o Options) config(t testing.TB, target targets.Target) (harness.Config, error) {
	name := o.Name
	if name == "" {
		name = "fencetest://" + t.Name()
	}
	spec := o.Nemesis
	if spec == "" {
		spec = "pause,delay"
	}
	faults, err := nemesis.Parse(spec)
	if err != nil {
		return harness.Config{}, fmt.Errorf("nemesis: %w", err)
	}
	seed := o.Seed
	if seed == 0 {
		seed = 1
	}
	minStale := o.MinStale
	if minStale == 0 {
		minStale = harness.DefaultMinStale(faults)
	}
	store := o.Store
	if store == "" {
		store = os.Getenv("FENCETEST_STORE")
	}
	if store == "" {
		store = filepath.Join(os.TempDir(), "fencecheck-runs")
	}
	return harness.Config{
		Command: reproduceLine(t.Name(), seed), Target: target, TargetName: name, Workers: o.Workers, Resources: o.Resources, Duration: o.Duration, Ops: o.Ops,
		LeaseTTL: o.LeaseTTL, Faults: faults, Seed: seed, Deterministic: o.Deterministic, Policy: o.Policy,
		RequireExclusive: o.RequireExclusive, MinStale: minStale, StoreDir: store,
	}, nil
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
