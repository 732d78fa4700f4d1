package harness

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/nemesis/proxy"
	"github.com/fencecheck/fencecheck/nemesis/tcpproxy"
	"github.com/fencecheck/fencecheck/targets/memory"
)

// TestValidateAsksEachFault: Validate refuses a fault that could never
// act in the run, as the fault itself says (nemesis.Fault.Available): a
// proxy's toxic that no started proxy holds, a process fault without its
// process. A run with such a fault would pass without it having acted.
// A toxic inside a started proxy is accepted.
func TestValidateAsksEachFault(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		fault nemesis.Fault
		want  string
	}{
		{"a toxic in no proxy", proxy.NewHold(), "Faults: hold acts in the HTTP proxy and needs the HTTP fault proxy in front of the receiver"},
		{"a net- toxic in no proxy", tcpproxy.NewReset(), "Faults: net-reset acts on the TCP connection to the receiver and needs the TCP fault proxy"},
		{"kill without a process", nemesis.NewKill(nil), "Faults: kill acts on the receiver process and needs a receiver process to act on"},
		{"a fault on the workers", nemesis.NewPause(), ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := testConfig(t, memory.NewFenced(), "memory://fenced", func(c *Config) { c.Nemesis.Faults = []nemesis.Fault{tc.fault} })
			err := cfg.Validate()
			if tc.want == "" {
				assert.NoError(t, err)
				return
			}
			assert.ErrorContains(t, err, tc.want)
		})
	}
	t.Run("a toxic in a started proxy", func(t *testing.T) {
		t.Parallel()
		hold := proxy.NewHold()
		p, err := proxy.Start("http://127.0.0.1:1", hold)
		require.NoError(t, err)
		t.Cleanup(func() { _ = p.Close() })
		cfg := testConfig(t, memory.NewFenced(), "memory://fenced", func(c *Config) { c.Nemesis.Faults = []nemesis.Fault{hold} })
		assert.NoError(t, cfg.Validate())
	})
}
