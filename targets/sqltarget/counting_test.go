package sqltarget

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/targets/sqltarget/internal/placeholders"
)

// TestWriteShapes checks how each engine reads the count of each shape of
// write, and which shapes it refuses before anything is sent.
func TestWriteShapes(t *testing.T) {
	t.Parallel()
	upsert := counting{upsert: true, foundRows: foundRowsOff}
	found := counting{foundRows: foundRowsOn}
	plain := counting{}
	const odku = "INSERT INTO t (id, token, value) VALUES (:resource, :token, :value) ON DUPLICATE KEY UPDATE " +
		"value = IF(VALUES(token) > token, VALUES(value), value), token = IF(VALUES(token) > token, VALUES(token), token)"
	cases := []struct {
		name string
		d    dialect
		stmt string
		want counting
		err  string
	}{
		{"MySQL upsert", mysqlDialect, odku, upsert, ""},
		{"MySQL upsert in lower case, words apart", mysqlDialect,
			"insert into t values (:resource, :token, :value) on /* c */ duplicate\n  key # c\n update token = if(values(token) > token, values(token), token)", upsert, ""},
		{"MySQL upsert by INSERT … SET", mysqlDialect, "INSERT INTO t SET id = :resource, token = :token ON DUPLICATE KEY UPDATE token = IF(VALUES(token) > token, VALUES(token), token)", upsert, ""},
		{"MySQL upsert by INSERT … SELECT", mysqlDialect, "INSERT INTO t SELECT :resource, :token, :value FROM DUAL ON DUPLICATE KEY UPDATE token = VALUES(token)", upsert, ""},
		{"MySQL upsert of one ROW()", mysqlDialect, "INSERT INTO t VALUES ROW(:resource, :token, :value) ON DUPLICATE KEY UPDATE token = VALUES(token)", upsert, ""},
		{"MySQL: ON DUPLICATE KEY UPDATE in a literal is no upsert", mysqlDialect, "INSERT INTO t VALUES (:resource, :token, 'ON DUPLICATE KEY UPDATE')", plain, ""},
		{"MySQL: in a comment neither", mysqlDialect, "INSERT INTO t VALUES (:resource, :token, :value) -- ON DUPLICATE KEY UPDATE x = 1", plain, ""},
		{"MySQL: nor in a quoted identifier", mysqlDialect, "INSERT INTO `on duplicate key update` VALUES (:resource, :token, :value)", plain, ""},
		{"MySQL plain UPDATE counts found rows", mysqlDialect, "UPDATE t SET value = :value, token = :token WHERE id = :resource AND token < :token", found, ""},
		{"MySQL WITH … UPDATE", mysqlDialect, "WITH c AS (SELECT 1) UPDATE t SET token = :token WHERE id = :resource AND token < :token", found, ""},
		{"MySQL INSERT IGNORE", mysqlDialect, "INSERT IGNORE INTO t VALUES (:resource, :token, :value)", plain, ""},
		{"MySQL REPLACE … SELECT", mysqlDialect, "REPLACE INTO t SELECT :resource, :token, :value FROM DUAL WHERE NOT EXISTS (SELECT 1 FROM t WHERE id = :resource AND token >= :token)", plain, ""},
		{"MariaDB INSERT … SELECT … RETURNING", mysqlDialect, "INSERT INTO t SELECT :resource, :token, :value RETURNING id", plain, ""},
		{"MySQL CALL needs the spec to say", mysqlDialect, "CALL fenced_write(:resource, :token, :value)", counting{foundRows: foundRowsGiven}, ""},
		{"MariaDB upsert with RETURNING is refused", mysqlDialect, odku + " RETURNING id", counting{}, "returns the row whether or not the update changed it"},
		{"MySQL upsert of two rows is refused", mysqlDialect, "INSERT INTO t VALUES (:resource, :token, :value), ('x', 1, 'y') ON DUPLICATE KEY UPDATE token = VALUES(token)", counting{}, "of 2 rows"},
		{"MySQL SELECT is refused", mysqlDialect, "SELECT fenced_write(:resource, :token, :value)", counting{}, "a SELECT cannot be the write"},
		{"MySQL SET is refused", mysqlDialect, "SET @x = :token", counting{}, "a write that starts with SET"},
		{"two statements are refused", mysqlDialect, "UPDATE t SET token = :token WHERE id = :resource; SELECT 1", counting{}, "2 statements"},
		{"a closing semicolon is one statement", mysqlDialect, "UPDATE t SET token = :token WHERE id = :resource AND token < :token; -- done", found, ""},
		{"only a comment is refused", sqlite, "-- nothing", counting{}, "no statement"},

		{"PostgreSQL upsert with a guard", postgres, "INSERT INTO t AS cur VALUES (:resource, :token, :value) ON CONFLICT (id) DO UPDATE SET token = EXCLUDED.token WHERE cur.token < EXCLUDED.token", plain, ""},
		{"PostgreSQL RETURNING", postgres, "UPDATE t SET token = :token WHERE id = :resource AND token < :token RETURNING token", plain, ""},
		{"PostgreSQL MERGE", postgres, "MERGE INTO t USING (SELECT 1) s ON t.id = :resource WHEN MATCHED AND t.token < :token THEN UPDATE SET token = :token", plain, ""},
		{"PostgreSQL data-modifying WITH", postgres, "WITH d AS (DELETE FROM log RETURNING *) INSERT INTO t SELECT :resource, :token, :value", plain, ""},
		{"PostgreSQL WITH … SELECT is refused", postgres, "WITH u AS (UPDATE t SET token = :token WHERE id = :resource RETURNING 1) SELECT count(*) FROM u", counting{}, "a SELECT cannot be the write"},
		{"PostgreSQL CALL is refused", postgres, "CALL fenced_write(:resource, :token, :value)", counting{}, "a CALL reports no count of rows on PostgreSQL"},
		{"PostgreSQL DO is refused", postgres, "DO $$BEGIN UPDATE t SET token = 1; END$$", counting{}, "a write that starts with DO"},
		{"PostgreSQL has no REPLACE", postgres, "REPLACE INTO t VALUES (:resource, :token, :value)", counting{}, "a write that starts with REPLACE"},

		{"SQLite upsert with a guard", sqlite, "INSERT INTO t VALUES (:resource, :token, :value) ON CONFLICT (id) DO UPDATE SET token = excluded.token WHERE excluded.token > t.token", plain, ""},
		{"SQLite INSERT OR REPLACE", sqlite, "INSERT OR REPLACE INTO t VALUES (:resource, :token, :value)", plain, ""},
		{"SQLite SELECT is refused", sqlite, "SELECT :resource, :token, :value", counting{}, "a SELECT cannot be the write"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			q, err := placeholders.Translate(tc.stmt, tc.d.syntax)
			require.NoError(t, err)
			s, err := shapeOf(q)
			var got counting
			if err == nil {
				got, err = tc.d.counting(s)
			}
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

// TestBuiltinCounting checks that the built-in atomic upserts are read by
// the same rules as a user's: MySQL's as an upsert on connections without
// CLIENT_FOUND_ROWS.
func TestBuiltinCounting(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		d    dialect
		want counting
	}{{sqlite, counting{}}, {postgres, counting{}}, {mysqlDialect, counting{upsert: true, foundRows: foundRowsOff}}} {
		for _, acceptEqual := range []bool{false, true} {
			q, err := placeholders.Translate(tc.d.statements("t", acceptEqual).atomic, tc.d.syntax)
			require.NoError(t, err)
			s, err := shapeOf(q)
			require.NoError(t, err)
			got, err := tc.d.counting(s)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got, "%s accept-equal %v", tc.d.name, acceptEqual)
		}
	}
}

// TestCountingOutcome checks how counts become outcomes, MySQL's upsert
// counts among them.
func TestCountingOutcome(t *testing.T) {
	t.Parallel()
	cases := []struct {
		c    counting
		n    int64
		want histories.Outcome
		err  bool
	}{
		{counting{}, 0, histories.Rejected, false},
		{counting{}, 1, histories.Accepted, false},
		{counting{}, 3, histories.Accepted, false},
		{counting{}, -1, 0, true},
		{counting{upsert: true}, 0, histories.Rejected, false},
		{counting{upsert: true}, 1, histories.Accepted, false},
		{counting{upsert: true}, 2, histories.Accepted, false},
		{counting{upsert: true}, 3, 0, true},
	}
	for _, tc := range cases {
		out, err := tc.c.outcome(tc.n)
		if tc.err {
			assert.Error(t, err, "%+v count %d", tc.c, tc.n)
			continue
		}
		require.NoError(t, err)
		assert.Equal(t, tc.want, out, "%+v count %d", tc.c, tc.n)
	}
}

// TestClientFoundRowsInTheSpec checks that a spec whose clientFoundRows
// contradicts what its write's count needs is refused, naming the
// parameter, before anything is sent (the port answers nothing), and that
// one that agrees gets that far.
func TestClientFoundRowsInTheSpec(t *testing.T) {
	t.Parallel()
	const base = "mysql://root@127.0.0.1:1/test"
	own := func(write string) Options {
		return ownOptions(Statements{Write: []string{write}, Read: "SELECT value, token FROM t WHERE id = :resource"})
	}
	upsert := own("INSERT INTO t VALUES (:resource, :token, :value) ON DUPLICATE KEY UPDATE token = IF(VALUES(token) > token, VALUES(token), token)")
	update := own("UPDATE t SET token = :token WHERE id = :resource AND token < :token")
	call := own("CALL fenced_write(:resource, :token, :value)")
	cases := []struct {
		name, query string
		opts        Options
		err         string // "" : gets as far as connecting
	}{
		{"upsert, spec as given", "", upsert, ""},
		{"upsert, clientFoundRows=true", "?clientFoundRows=true", upsert, "clientFoundRows=true in the target spec makes an INSERT … ON DUPLICATE KEY UPDATE that left the row as it was"},
		{"upsert, clientFoundRows=false", "?clientFoundRows=false", upsert, ""},
		{"UPDATE, spec as given", "", update, ""},
		{"UPDATE, clientFoundRows=false", "?clientFoundRows=false", update, "clientFoundRows=false in the target spec makes an UPDATE count the rows it changed"},
		{"UPDATE, clientFoundRows=1", "?clientFoundRows=1", update, ""},
		{"CALL, spec as given", "", call, "add clientFoundRows=true to the target spec if that statement is an UPDATE"},
		{"CALL, clientFoundRows=false", "?clientFoundRows=false", call, ""},
		{"the built-in upsert, clientFoundRows=true", "?clientFoundRows=true", DefaultOptions(), "clientFoundRows=true in the target spec"},
		{"check-then-set does not read its count", "?clientFoundRows=true", modeOptions(ModeCheckThenSet), ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := Open(context.Background(), base+tc.query, tc.opts)
			require.Error(t, err)
			if tc.err == "" {
				assert.Contains(t, err.Error(), "connection refused", "got as far as connecting")
				return
			}
			assert.Contains(t, err.Error(), tc.err)
			assert.NotContains(t, err.Error(), "connection refused", "refused before connecting")
		})
	}
}
