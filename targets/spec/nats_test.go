package targetspec

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/internal/testsupport/testdb"
	"github.com/fencecheck/fencecheck/targets/natstarget"
)

// TestParseNATS: "nats" and nats://embedded name the private server,
// which the process faults act on and the TCP faults cannot reach;
// nats://HOST:PORT names the user's, which the TCP faults can reach and
// the process faults cannot; NATS options elsewhere are refused.
func TestParseNATS(t *testing.T) {
	t.Parallel()
	withCommand := DefaultOptions()
	withCommand.NATS = &natstarget.Options{Mode: natstarget.ModeAtomic, Timeout: 1e9, Command: []string{"true"}}
	for _, tc := range []struct {
		name, spec, faults string
		o                  Options
		err                string
	}{
		{name: "bare nats", spec: "nats", faults: "kill,pause-receiver", o: withCommand},
		{name: "embedded with sync", spec: "nats://embedded?sync=always", faults: "kill", o: withCommand},
		{name: "embedded, TCP faults", spec: "nats://embedded", faults: "net-reset", o: withCommand, err: "private NATS server's port"},
		{name: "embedded without a command", spec: "nats://embedded", o: DefaultOptions(), err: "no command runs the private server"},
		{name: "shared, TCP faults", spec: "nats://127.0.0.1:4222", faults: "net-reset", o: DefaultOptions()},
		{name: "shared, kill", spec: "nats://127.0.0.1:4222", faults: "kill", o: DefaultOptions(), err: "acts on the receiver process"},
		{name: "NATS options for Redis", spec: "redis://127.0.0.1:6379/0", o: withCommand, err: "need a NATS target"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, err := Parse(tc.spec, tc.o)
			if err == nil && tc.faults != "" {
				_, err = s.ParseFaults(tc.faults)
			}
			if tc.err != "" {
				assert.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
		})
	}
}

// TestOpenNATSThroughTheProxy: the shared server through the TCP fault
// proxy is named as without it, and writes reach it.
func TestOpenNATSThroughTheProxy(t *testing.T) {
	t.Parallel()
	url, skip := testdb.NATS().DSN()
	if skip != "" {
		t.Skip(skip)
	}
	s, err := Parse(url, DefaultOptions())
	require.NoError(t, err)
	faults, err := s.ParseFaults("net-latency")
	require.NoError(t, err)
	ctx := context.Background()
	tgt, err := s.Open(ctx, faults)
	require.NoError(t, err)
	defer tgt.Close()
	assert.Equal(t, url+" (atomic)", tgt.Name)
	nt := tgt.Target.(*natstarget.Target)
	require.NoError(t, nt.Setup(ctx))
	defer func() { assert.NoError(t, nt.Teardown(ctx)) }()
	_, err = nt.Write(ctx, "r0", 1, "v")
	require.NoError(t, err)
}
