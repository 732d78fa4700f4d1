package natsserver

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConfig: the configuration listens on loopback only, keeps its
// store where it is told, and fsyncs every write only with Sync; the
// server's own parser reads it (Serve fails on a file it cannot read).
func TestConfig(t *testing.T) {
	t.Parallel()
	for _, sync := range []bool{false, true} {
		c := Config{Port: 4333, StoreDir: "/tmp/a b/store", Sync: sync}
		text := c.Text()
		assert.Contains(t, text, `listen: "127.0.0.1:4333"`)
		assert.Contains(t, text, `store_dir: "/tmp/a b/store"`)
		assert.Equal(t, sync, strings.Contains(text, "sync_interval: always"))
		assert.Equal(t, "nats://127.0.0.1:4333", c.URL())
		path, err := Write(t.TempDir(), c) // not validated: a server's configuration file
		require.NoError(t, err)
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, text, string(b))
	}
}

// TestServeRefusesABadFile: a configuration the server cannot read is an
// error naming the file, before anything listens.
func TestServeRefusesABadFile(t *testing.T) {
	t.Parallel()
	// not validated: a server's configuration files, good and bad
	bad := filepath.Join(t.TempDir(), ConfigFile)
	require.NoError(t, os.WriteFile(bad, []byte("listen: {{{"), 0o600))
	// not validated: a file that does not exist
	for _, path := range []string{bad, filepath.Join(t.TempDir(), "missing.conf")} {
		err := Serve(context.Background(), path)
		assert.ErrorContains(t, err, path)
	}
}

// TestCmdline: the configuration's path is quoted for sh -c, whatever it
// holds.
func TestCmdline(t *testing.T) {
	t.Parallel()
	assert.Equal(t, `/bin/fencecheck nats-server '/tmp/a b/c.conf'`, Cmdline([]string{"/bin/fencecheck", "nats-server"}, "/tmp/a b/c.conf"))
}
