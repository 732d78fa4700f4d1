package redistarget

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/internal/testsupport/testdb"
)

// spec returns the Redis server's spec, or skips the test with the
// reason (see testdb).
func spec(t testing.TB) string {
	t.Helper()
	s, skip := testdb.Redis().DSN()
	if skip != "" {
		t.Skip(skip)
	}
	return s
}

// modeOptions are the defaults with a built-in mode.
func modeOptions(m Mode) Options {
	o := DefaultOptions()
	o.Mode = m
	return o
}

// scriptOptions are the defaults with the user's script from testdata.
func scriptOptions(t testing.TB, file string) Options {
	t.Helper()
	o := DefaultOptions()
	o.Mode, o.Script = "", script(t, file)
	return o
}

func script(t testing.TB, file string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", file))
	require.NoError(t, err)
	return string(b)
}

// open opens a target and, when the test ends, tears it down, checks
// that no key of its prefix is left and closes it.
func open(t testing.TB, o Options) *Target {
	t.Helper()
	ctx := context.Background()
	tgt, err := Open(ctx, spec(t), o)
	require.NoError(t, err)
	require.NoError(t, tgt.Setup(ctx))
	t.Cleanup(func() {
		assert.NoError(t, tgt.Teardown(ctx))
		assert.Empty(t, keys(t, tgt), "Teardown left keys behind")
		assert.NoError(t, tgt.Close())
	})
	return tgt
}

// keys lists the keys of the target's prefix.
func keys(t testing.TB, tgt *Target) []string {
	t.Helper()
	ks, err := tgt.client.Keys(context.Background(), tgt.prefix+"*").Result()
	require.NoError(t, err)
	return ks
}

// raw is a client of the test's own on the same server.
func raw(t testing.TB) *redis.Client {
	t.Helper()
	o, err := redis.ParseURL(spec(t))
	require.NoError(t, err)
	c := redis.NewClient(o)
	t.Cleanup(func() { c.Close() })
	return c
}
