package sqltarget

import (
	"context"
	"fmt"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/internal/testsupport/testdb"
)

// TestMySQLAffectedRows pins down the counts mysql.go relies on: an
// INSERT … ON DUPLICATE KEY UPDATE counts 1 inserted, 2 updated, 0
// unchanged, and clientFoundRows turns "unchanged" into 1 (found), for the
// upsert and for a plain UPDATE alike.
func TestMySQLAffectedRows(t *testing.T) {
	t.Parallel()
	u, err := url.Parse(engine{name: "mysql", server: testdb.MySQL()}.spec(t))
	require.NoError(t, err)
	const upsert = "INSERT INTO %s (resource, token, value) VALUES ('r', ?, 'v') ON DUPLICATE KEY UPDATE token = VALUES(token)"
	cases := []struct {
		foundRows                    bool
		insert, update, unchanged    int64
		updateStmt, updateStmtSameAs int64
	}{
		{foundRows: false, insert: 1, update: 2, unchanged: 0, updateStmt: 1, updateStmtSameAs: 0},
		{foundRows: true, insert: 1, update: 2, unchanged: 1, updateStmt: 1, updateStmtSameAs: 1},
	}
	for _, tc := range cases {
		ctx := context.Background()
		need := foundRowsOff
		if tc.foundRows {
			need = foundRowsOn
		}
		o := DefaultOptions()
		o.Workers = 1
		db, err := openMySQL(u, o, need, &driverLog{})
		require.NoError(t, err)
		defer db.Close()
		table := newTableName()
		_, err = db.ExecContext(ctx, "CREATE TABLE "+table+" (resource VARCHAR(64) PRIMARY KEY, token BIGINT, value TEXT)")
		require.NoError(t, err)
		defer db.ExecContext(ctx, "DROP TABLE "+table)
		affected := func(stmt string, args ...any) int64 {
			res, err := db.ExecContext(ctx, stmt, args...)
			require.NoError(t, err)
			n, err := res.RowsAffected()
			require.NoError(t, err)
			return n
		}
		up := fmt.Sprintf(upsert, table)
		assert.Equal(t, tc.insert, affected(up, 1), "foundRows=%v: insert", tc.foundRows)
		assert.Equal(t, tc.update, affected(up, 2), "foundRows=%v: update", tc.foundRows)
		assert.Equal(t, tc.unchanged, affected(up, 2), "foundRows=%v: unchanged", tc.foundRows)
		assert.Equal(t, tc.updateStmt, affected("UPDATE "+table+" SET token = 3 WHERE resource = 'r'"), "foundRows=%v: UPDATE", tc.foundRows)
		assert.Equal(t, tc.updateStmtSameAs, affected("UPDATE "+table+" SET token = 3 WHERE resource = 'r'"), "foundRows=%v: UPDATE to the same values", tc.foundRows)
	}
}
