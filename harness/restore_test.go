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
