package harness

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/targets/memory"
)

// TestIssuerRestoreNeedsARestorer: a run with a restore fault whose
// issuer has servers but cannot be restored from a snapshot is refused
// before its work starts, naming the fault.
func TestIssuerRestoreNeedsARestorer(t *testing.T) {
	t.Parallel()
	for _, f := range []nemesis.Fault{nemesis.NewIssuerRestore(), nemesis.NewIssuerRestoreBumped()} {
		t.Run(f.Name(), func(t *testing.T) {
			t.Parallel()
			_, err := Run(context.Background(), testConfig(t, memory.NewFenced(), "memory://fenced", func(c *Config) {
				c.Runtime.Deterministic, c.Leases.Issuer, c.Workload.Ops = false, serversIssuer{}, 10
				c.Nemesis.Faults = []nemesis.Fault{f}
			}))
			assert.ErrorContains(t, err, f.Name()+" needs an issuer fencecheck can restore from a snapshot")
		})
	}
}

// TestRestoreGap: a run whose issuer can be restored from a snapshot and
// that did not restore it says so, with the fault that would; one with a
// restore fault, or whose issuer cannot be restored, does not.
func TestRestoreGap(t *testing.T) {
	t.Parallel()
	const gap = "the token sequence across a restore of the issuer from a snapshot is not tested by this run (add nemesis.IssuerRestore to Config.Nemesis.Faults)"
	cases := []struct {
		name       string
		restorable bool
		faults     []string
		want       bool
	}{
		{"restorable, not restored", true, []string{"issuer-kill"}, true},
		{"restored", true, []string{"issuer-restore"}, false},
		{"restored, bumped", true, []string{"issuer-restore-bumped"}, false},
		{"not restorable", false, nil, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := Result{Config: RunConfig{issuerFaults: tc.faults, issuerServers: true, restorable: tc.restorable}}
			var gaps []string
			for _, g := range res.NotCovered() {
				gaps = append(gaps, g.Text(ConfigTerms{}))
			}
			if tc.want {
				assert.Contains(t, gaps, gap)
			} else {
				assert.NotContains(t, gaps, gap)
			}
		})
	}
}
