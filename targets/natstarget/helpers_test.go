package natstarget

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"testing"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/internal/natsserver"
	"github.com/fencecheck/fencecheck/internal/testsupport/natsbuckets"
	"github.com/fencecheck/fencecheck/internal/testsupport/testdb"
)

// helperEnv makes the test binary a private NATS server
// (TestHelperNATSServer), as os/exec's own tests make it a helper.
const helperEnv = "FENCECHECK_NATS_SERVER_HELPER"

// TestHelperNATSServer is not a test: the private server's tests run the
// test binary as the server, with its configuration file as the last
// argument.
func TestHelperNATSServer(t *testing.T) {
	if os.Getenv(helperEnv) != "1" {
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if err := natsserver.Serve(ctx, os.Args[len(os.Args)-1]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// helperCommand runs a private server in the test binary.
func helperCommand(t testing.TB) []string {
	t.Helper()
	env, err := exec.LookPath("env")
	require.NoError(t, err)
	return []string{env, helperEnv + "=1", os.Args[0], "-test.run=^TestHelperNATSServer$", "--"}
}

// created are the buckets the tests created on the shared server, which
// TestMain checks are gone.
var created natsbuckets.Set

func TestMain(m *testing.M) { os.Exit(created.Main(m, helperEnv)) }

// spec returns the shared NATS server's URL, or skips the test with the
// reason (see testdb).
func spec(t testing.TB) string {
	t.Helper()
	s, skip := testdb.NATS().DSN()
	if skip != "" {
		t.Skip(skip)
	}
	return s
}

// modeOptions are the defaults with mode m.
func modeOptions(m Mode) Options {
	o := DefaultOptions()
	o.Mode = m
	return o
}

// open opens a target on the shared server, sets it up and, when the
// test ends, tears it down, checks its bucket is gone and closes it.
func open(t testing.TB, o Options) *Target {
	t.Helper()
	ctx := context.Background()
	tgt, err := Open(ctx, spec(t), o)
	require.NoError(t, err)
	created.Add(tgt.Bucket())
	require.NoError(t, tgt.Setup(ctx))
	t.Cleanup(func() {
		assert.NoError(t, tgt.Teardown(ctx))
		_, err := tgt.js.KeyValue(ctx, tgt.Bucket())
		assert.ErrorIs(t, err, jetstream.ErrBucketNotFound, "Teardown left the bucket behind")
		assert.NoError(t, tgt.Close())
	})
	return tgt
}

// openPrivate starts a private server in the test binary, with its store
// in a temporary directory, stopped when the test ends.
func openPrivate(t testing.TB, spec string, o Options) *Private {
	t.Helper()
	o.Command = helperCommand(t)
	p, err := OpenPrivate(spec, o)
	require.NoError(t, err)
	p.UseRunDir(t.TempDir())
	ctx := context.Background()
	require.NoError(t, p.Setup(ctx))
	t.Cleanup(func() { assert.NoError(t, p.Teardown(ctx)) })
	return p
}
