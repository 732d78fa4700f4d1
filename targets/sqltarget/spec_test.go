package sqltarget

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/internal/testsupport/testdb"
)

// TestOpenErrorsHideThePassword: a connection that fails names the spec
// without its password, and the error still unwraps (the redaction rule
// itself is tested in internal/redact).
func TestOpenErrorsHideThePassword(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cases := []string{
		"postgres://fc:Hunt3r2pw@127.0.0.1:1/db?sslmode=disable",
		"postgresql://fc@127.0.0.1:1/db?sslmode=disable&password=Hunt3r2pw",
		"mysql://fc:Hunt3r2pw@127.0.0.1:1/test",
	}
	for _, spec := range cases {
		t.Run(spec, func(t *testing.T) {
			t.Parallel()
			_, err := Open(ctx, spec, DefaultOptions())
			require.Error(t, err)
			assert.NotContains(t, err.Error(), "Hunt3r2pw")
			assert.Contains(t, err.Error(), "xxxxx")
		})
	}
}

func TestOpenRejects(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, spec string
		opts       Options
		want       string
	}{
		{"no SQLite path", "sqlite://", DefaultOptions(), "no database file"},
		{"a query in a SQLite path", "sqlite:///tmp/x.db?mode=ro", DefaultOptions(), "not supported in SQLite paths"},
		{"no MySQL database", "mysql://root@127.0.0.1:3306/", DefaultOptions(), "no database name"},
		{"unknown scheme", "oracle://x", DefaultOptions(), "not a SQL target"},
		{"unknown mode", "sqlite:///tmp/x.db", modeOptions("careful"), `unknown sql-mode "careful"`},
		{"a placeholder in a set-up statement", "sqlite:///tmp/x.db",
			ownOptions(Statements{Setup: []string{"DELETE FROM t WHERE id = :resource"}, Write: []string{"x"}, Read: "y"}), "take no placeholders"},
		{"a bad read", "sqlite:///tmp/x.db", ownOptions(Statements{Write: []string{"UPDATE t SET v = :value"}, Read: "SELECT v FROM t WHERE id = ?"}), "--sql-read: positional placeholder"},
		{"no workers", "sqlite:///tmp/x.db", workersOptions(0), "Workers must be at least 1, not 0"},
		{"negative workers", "sqlite:///tmp/x.db", workersOptions(-2), "Workers must be at least 1, not -2"},
		{"no timeout", "sqlite:///tmp/x.db", timeoutOptions(0), "Timeout must be positive, not 0s"},
		{"negative timeout", "sqlite:///tmp/x.db", timeoutOptions(-time.Second), "Timeout must be positive, not -1s"},
		{"neither mode nor statements", "sqlite:///tmp/x.db", modeOptions(""), "no Mode and no Statements"},
		{"the zero options", "sqlite:///tmp/x.db", Options{}, "Workers must be at least 1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := Open(context.Background(), tc.spec, tc.opts)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// TestMemoryDatabaseIsShared checks that sqlite://:memory: is one database
// for every connection of the pool, not one per connection.
func TestMemoryDatabaseIsShared(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tgt := open(t, "sqlite://:memory:", workersOptions(2))
	_, err := tgt.Write(ctx, "r", 1, "v")
	require.NoError(t, err)
	var conns []interface{ Close() error }
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range 4 {
		conn, err := tgt.db.Conn(ctx) // held, so each is a different connection
		require.NoError(t, err)
		conns = append(conns, conn)
		var value string
		require.NoError(t, conn.QueryRowContext(ctx, "SELECT value FROM "+tgt.Table()).Scan(&value))
		assert.Equal(t, "v", value)
	}
}

// TestPostgresqlScheme checks that postgresql:// is PostgreSQL too.
func TestPostgresqlScheme(t *testing.T) {
	t.Parallel()
	spec := engine{name: "postgres", server: testdb.Postgres()}.spec(t)
	scheme, rest, _ := strings.Cut(spec, "://")
	require.Equal(t, "postgres", scheme)
	tgt := open(t, "postgresql://"+rest, DefaultOptions())
	assert.Equal(t, "postgres", tgt.Dialect())
	out, err := tgt.Write(context.Background(), "r", 1, "v")
	require.NoError(t, err)
	assert.Equal(t, histories.Accepted, out)
}

// workersOptions are the defaults with another pool size.
func workersOptions(n int) Options {
	o := DefaultOptions()
	o.Workers = n
	return o
}
