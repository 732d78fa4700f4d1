package sqltarget

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/internal/testsupport/testdb"
)

// engine is a database the tests run against. SQLite always runs;
// PostgreSQL and MariaDB/MySQL whenever their server answers (see testdb).
type engine struct {
	name   string
	server *testdb.Server // nil for SQLite
	memory bool           // SQLite: sqlite://:memory: instead of a file
}

var engines = []engine{
	{name: "sqlite"},
	{name: "sqlite-memory", memory: true},
	{name: "postgres", server: testdb.Postgres()},
	{name: "mysql", server: testdb.MySQL()},
}

// spec returns the engine's target spec, or skips the test with the reason.
func (e engine) spec(t testing.TB) string {
	t.Helper()
	if e.memory {
		return "sqlite://:memory:"
	}
	if e.server == nil {
		return "sqlite://" + filepath.Join(schema.TempDir(t), "fencecheck.db")
	}
	spec, skip := e.server.DSN()
	if skip != "" {
		t.Skip(skip)
	}
	return spec
}

// modeOptions are the defaults with a built-in mode.
func modeOptions(m Mode) Options {
	o := DefaultOptions()
	o.Mode = m
	return o
}

// ownOptions are the defaults with the user's own statements.
func ownOptions(st Statements) Options {
	o := DefaultOptions()
	o.Mode, o.Statements = "", st
	return o
}

// open opens a target and closes it when the test ends. A built-in
// mode's scratch table is set up, and dropped at the end.
func open(t testing.TB, spec string, o Options) *Target {
	t.Helper()
	tgt := openNoTeardown(t, spec, o)
	t.Cleanup(func() { require.NoError(t, tgt.Teardown(context.Background())) })
	return tgt
}

// openNoTeardown opens a target and sets it up; the test tears it down.
func openNoTeardown(t testing.TB, spec string, o Options) *Target {
	t.Helper()
	ctx := context.Background()
	tgt, err := Open(ctx, spec, o)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, tgt.Close()) })
	require.NoError(t, tgt.Setup(ctx))
	return tgt
}
