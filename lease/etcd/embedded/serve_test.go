package embedded

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestServeDir: a served cluster without a directory gets a temporary
// one, removed whole at the end; one of the user's keeps the logs, and
// is refused while it holds an earlier cluster's data.
func TestServeDir(t *testing.T) {
	t.Parallel()
	tmp, cleanup, err := ServeDir("")
	require.NoError(t, err)
	assert.DirExists(t, tmp)
	require.NoError(t, cleanup(nil))
	assert.NoDirExists(t, tmp)

	mine := t.TempDir()
	dir, cleanup, err := ServeDir(mine)
	require.NoError(t, err)
	assert.Equal(t, mine, dir)
	assert.NoError(t, cleanup(nil), "a cluster that never started left nothing")

	require.NoError(t, os.MkdirAll(filepath.Join(mine, "m0", "data"), 0o755))
	_, _, err = ServeDir(mine)
	assert.True(t, errors.Is(err, ErrEarlierData), "%v", err)
	assert.ErrorContains(t, err, mine+": holds an earlier cluster's data ("+filepath.Join(mine, "m0", "data")+"); remove it or give another directory")
}

// TestAddrs: the members' addresses are their client URLs' hosts.
func TestAddrs(t *testing.T) {
	t.Parallel()
	addrs, err := (&Cluster{Endpoints: []string{"http://127.0.0.1:1", "http://[::1]:2"}}).Addrs()
	require.NoError(t, err)
	assert.Equal(t, []string{"127.0.0.1:1", "[::1]:2"}, addrs)
	_, err = (&Cluster{Endpoints: []string{"not a url"}}).Addrs()
	assert.ErrorContains(t, err, `member 0 has no client address in "not a url"`)
}
