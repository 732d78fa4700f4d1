package sqltarget

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// engine is a database the tests run against. SQLite always runs;
// PostgreSQL and MariaDB/MySQL run when .ci/run (or you) export their DSNs.
type engine struct {
	name   string
	env    string // the variable holding the spec; "" for SQLite
	memory bool   // SQLite: sqlite://:memory: instead of a file
}

var engines = []engine{
	{name: "sqlite"},
	{name: "sqlite-memory", memory: true},
	{name: "postgres", env: "FENCECHECK_POSTGRES_DSN"},
	{name: "mysql", env: "FENCECHECK_MYSQL_DSN"},
}

// spec returns the engine's target spec, or skips the test with the reason.
func (e engine) spec(t testing.TB) string {
	t.Helper()
	if e.memory {
		return "sqlite://:memory:"
	}
	if e.env == "" {
		return "sqlite://" + filepath.Join(t.TempDir(), "fencecheck.db")
	}
	spec := os.Getenv(e.env)
	if spec == "" {
		t.Skipf("%s is not set: no %s server to test against (.ci/run starts one and sets it)", e.env, e.name)
	}
	return spec
}

// open opens a target and closes it when the test ends. A built-in
// mode's scratch table is set up, and dropped at the end.
func open(t testing.TB, spec string, o Options) *Target {
	t.Helper()
	ctx := context.Background()
	tgt, err := Open(ctx, spec, o)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, tgt.Close()) })
	require.NoError(t, tgt.Setup(ctx))
	t.Cleanup(func() { require.NoError(t, tgt.Teardown(ctx)) })
	return tgt
}
