package fencetest

import (
	"github.com/fencecheck/fencecheck/harness"
	"github.com/fencecheck/fencecheck/nemesis"
	targetspec "github.com/fencecheck/fencecheck/targets/spec"
)

// TB is a T that can clean up after the test, as *testing.T and
// *testing.B can: what Target needs to close the target it opened.
type TB interface {
	T
	Cleanup(func())
}

// Target opens the receiver a target spec names, as fencecheck run
// --target opens it (targets/spec): memory://…, sqlite://…,
// postgres://…, mysql://…, redis://…, http://…, with o. The faults of
// o.Faults that act in a fault proxy get one in front of the receiver:
// a net- fault (nemesis/tcpproxy) acts on the bytes between the workers
// and a real PostgreSQL, MariaDB, Redis or HTTP server. The target is
// closed, proxies and all, when the test ends; a spec that cannot be
// opened fails t.
//
//	o := targetspec.DefaultOptions()
//	o.Faults = []nemesis.Fault{nemesis.NewPause(), tcpproxy.NewReset()}
//	tgt := fencetest.Target(t, "postgres://postgres@127.0.0.1:5432/test", o)
//	fencetest.Run(t, fencetest.TargetConfig(t, tgt, o.Faults))
func Target(t TB, spec string, o targetspec.Options) *targetspec.Target {
	t.Helper()
	tgt, err := targetspec.Open(t.Context(), spec, o)
	if err != nil {
		t.Fatalf("fencetest: open target: %v", err)
		return nil
	}
	t.Cleanup(func() {
		if err := tgt.Close(); err != nil {
			t.Errorf("fencetest: close %s: %v", tgt.Name, err)
		}
	})
	return tgt
}

// TargetConfig is Config for a target Target opened: named after the
// test, in the deterministic simulation for a memory receiver (on the
// real clock for the others), inside the receiver's token domain, with
// faults, the ones the target was opened with, as the run's faults, and
// Config's gate of one stale write.
func TargetConfig(t T, tgt *targetspec.Target, faults []nemesis.Fault) harness.Config {
	cfg := Config(t, tgt.Target)
	cfg.Runtime.Deterministic, cfg.Target.MaxToken = tgt.Deterministic, tgt.MaxToken
	cfg.Nemesis.Faults = faults
	return cfg
}
