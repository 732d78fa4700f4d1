package sqltarget

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/targets"
)

// txStatements are the user's statements on a fresh table with rows r0…r3
// at token 0: the writes (with %[1]s for the table), a guard, and more.
func txStatements(table, guard string, writes ...string) Statements {
	st := ownStatements(table, writes[len(writes)-1], true, nil, nil)
	st.Write = nil
	for _, w := range writes {
		st.Write = append(st.Write, fmt.Sprintf(w, table))
	}
	if guard != "" {
		st.Guard = fmt.Sprintf(guard, table)
	}
	return st
}

// TestTxRefused: what cannot be run as asked is refused before anything
// is sent, naming the statement.
func TestTxRefused(t *testing.T) {
	t.Parallel()
	const update = "UPDATE t SET value = :value, token = :token WHERE id = :resource"
	st := func(mod func(*Statements)) Options {
		s := Statements{Write: []string{update}, Read: "SELECT value, token FROM t WHERE id = :resource"}
		mod(&s)
		return ownOptions(s)
	}
	cases := []struct {
		name string
		opts Options
		want string
	}{
		{"a guard that returns no rows", st(func(s *Statements) { s.Guard = update }), "--sql-guard: a guard must return rows"},
		{"two statements in a guard", st(func(s *Statements) { s.Guard = "SELECT 1; SELECT 2" }), "--sql-guard: 2 statements"},
		{"two statements in one write of several", st(func(s *Statements) { s.Write = []string{"SELECT 1; SELECT 2", update} }), "--sql-write 1 of 2: 2 statements"},
		{"an unknown placeholder in the guard", st(func(s *Statements) { s.Guard = "SELECT 1 WHERE :tokn > 0" }), "--sql-guard: unknown placeholder :tokn"},
		{"an unknown isolation", st(func(s *Statements) { s.Isolation = "snapshot" }), `unknown isolation level "snapshot"`},
		{"an unknown rule", st(func(s *Statements) { s.Accepted = "affects-row" }), `unknown accepted rule "affects-row"`},
		{"affects-rows with RETURNING", st(func(s *Statements) {
			s.Write, s.Accepted = []string{update + " RETURNING id"}, AcceptedAffectsRows
		}), "affects-rows: a UPDATE with RETURNING returns rows"},
		{"returns-row without rows", st(func(s *Statements) { s.Accepted = AcceptedReturnsRow }), "returns-row: a UPDATE returns no rows"},
		{"returns-no-row without rows", st(func(s *Statements) { s.Accepted = AcceptedReturnsNoRow }), "returns-no-row: a UPDATE returns no rows"},
		{"a query without an accepted column", st(func(s *Statements) { s.Write = []string{update, "SELECT 1"} }), "--sql-write 2 of 2: a SELECT cannot be the write"},
		{"SQLite at read committed", st(func(s *Statements) { s.Isolation = ReadCommitted }), "SQLite runs every transaction serializable"},
		{"isolation beside a built-in mode", func() Options {
			o := modeOptions(ModeAtomic)
			o.Statements.Isolation = Serializable
			return o
		}(), "exclude each other"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := Open(context.Background(), "sqlite:///nonexistent/never-opened.db", tc.opts)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// TestRolledBack pins down which errors are the engine's word that the
// whole transaction was rolled back, and that a COMMIT without one stays
// unknown.
func TestRolledBack(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		err  error
		want bool
	}{
		{"PostgreSQL serialization failure", &pgconn.PgError{Code: "40001"}, true},
		{"PostgreSQL deadlock", fmt.Errorf("statement 1: %w", &pgconn.PgError{Code: "40P01"}), true},
		{"PostgreSQL unique violation", &pgconn.PgError{Code: "23505"}, false},
		{"PostgreSQL admin shutdown", &pgconn.PgError{Code: "57P01", Severity: "FATAL"}, false},
		{"COMMIT answered ROLLBACK", pgx.ErrTxCommitRollback, true},
		{"MySQL deadlock", &mysql.MySQLError{Number: 1213}, true},
		{"MySQL lock wait timeout: only the statement", &mysql.MySQLError{Number: 1205}, false},
		{"connection lost", io.ErrUnexpectedEOF, false},
		{"deadline", context.DeadlineExceeded, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, rolledBack(tc.err))
			assert.Equal(t, tc.want, errors.Is(commitError(tc.err), targets.ErrDefinitelyNotApplied), "a COMMIT is not applied only on the engine's word")
		})
	}
}

// TestTxOutcomes writes through a transaction on every engine, step by
// step: the guard rejects and rolls back, the last statement's result is
// read by the rule, and an accepted column decides.
func TestTxOutcomes(t *testing.T) {
	t.Parallel()
	const (
		guard    = "SELECT 1 FROM %[1]s WHERE id = :resource AND token < :token"
		update   = "UPDATE %[1]s SET value = :value, token = :token WHERE id = :resource"
		guarded  = update + " AND token < :token"
		bump     = "UPDATE %[1]s SET version = version + 1 WHERE id = :resource"
		returned = guarded + " RETURNING id"
	)
	type step struct {
		token uint64
		want  histories.Outcome
		read  uint64 // the token read back after the step
	}
	cases := []struct {
		name    string
		guard   string
		writes  []string
		rule    Accepted
		engines []string // nil: every engine
		steps   []step
	}{
		{"guard and update", guard, []string{update}, "", nil,
			[]step{{5, histories.Accepted, 5}, {3, histories.Rejected, 5}, {5, histories.Rejected, 5}, {6, histories.Accepted, 6}}},
		// The guard's rejection rolls back: bump never commits.
		{"guard, two statements", guard, []string{bump, update}, "", nil,
			[]step{{5, histories.Accepted, 5}, {4, histories.Rejected, 5}}},
		{"no guard, the last statement counts", "", []string{bump, guarded}, "", nil,
			[]step{{5, histories.Accepted, 5}, {4, histories.Rejected, 5}}},
		{"returns-row", "", []string{returned}, AcceptedReturnsRow, []string{"sqlite", "sqlite-memory", "postgres"},
			[]step{{5, histories.Accepted, 5}, {4, histories.Rejected, 5}}},
		{"returns-no-row", "", []string{guarded, "SELECT id FROM %[1]s WHERE id = :resource AND token <> :token"}, AcceptedReturnsNoRow, nil,
			[]step{{5, histories.Accepted, 5}, {4, histories.Rejected, 5}}},
		{"accepted column", "", []string{guarded, "SELECT token = :token AS accepted FROM %[1]s WHERE id = :resource"}, "", nil,
			[]step{{5, histories.Accepted, 5}, {4, histories.Rejected, 5}}},
		{"accepted column in RETURNING", "", []string{update + " RETURNING token > 4 AS accepted"}, "", []string{"sqlite", "sqlite-memory", "postgres"},
			[]step{{5, histories.Accepted, 5}, {4, histories.Rejected, 4}}},
	}
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			for _, tc := range cases {
				if tc.engines != nil && !containsName(tc.engines, e.name) {
					continue
				}
				t.Run(tc.name, func(t *testing.T) {
					t.Parallel()
					st := txStatements(newTableName(), tc.guard, tc.writes...)
					st.Accepted = tc.rule
					tgt := openOwn(t, e.spec(t), st)
					require.True(t, tgt.tx || len(tc.writes) == 1 && tc.guard == "")
					ctx := context.Background()
					for i, s := range tc.steps {
						out, err := tgt.Write(ctx, "r1", s.token, fmt.Sprintf("v%d", i))
						require.NoError(t, err, "step %d", i)
						assert.Equal(t, s.want, out, "step %d: token %d", i, s.token)
						r, err := tgt.Read(ctx, "r1")
						require.NoError(t, err)
						assert.Equal(t, s.read, r.Token, "step %d", i)
					}
				})
			}
		})
	}
}

func containsName(names []string, name string) bool {
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}

// TestTxWindowAndConflicts drives two writers of tokens 41 and 42 through
// the same unlocked guard before either updates, on PostgreSQL and
// MariaDB. At the engine's default level the older one updates last and
// wins: the race the delay fault provokes in the window. At SERIALIZABLE
// the engine refuses one of them: a serialization failure (PostgreSQL) or
// a deadlock (MariaDB, whose SERIALIZABLE reads take shared locks) that
// rolled it back, recorded as definitely not applied.
func TestTxWindowAndConflicts(t *testing.T) {
	t.Parallel()
	const guard = "SELECT 1 FROM %[1]s WHERE id = :resource AND token < :token"
	const update = "UPDATE %[1]s SET value = :value, token = :token WHERE id = :resource"
	for _, e := range engines {
		if e.server == nil {
			continue // SQLite's transactions take the write lock first
		}
		for _, iso := range []Isolation{"", Serializable} {
			t.Run(fmt.Sprintf("%s/%s", e.name, iso), func(t *testing.T) {
				t.Parallel()
				st := txStatements(newTableName(), guard, update)
				st.Isolation = iso
				tgt := openOwn(t, e.spec(t), st)
				ctx := context.Background()
				var checked sync.WaitGroup
				checked.Add(2)
				newerDone := make(chan struct{})
				tgt.SetWindow(func(_ context.Context, _ string, token uint64) {
					checked.Done()
					checked.Wait() // both passed the guard against token 0
					if token == 41 && iso == "" {
						<-newerDone // 41 updates after 42 committed
					}
				})
				outs := make(map[uint64]error)
				results := make(map[uint64]histories.Outcome)
				var mu sync.Mutex
				var wg sync.WaitGroup
				for _, tok := range []uint64{41, 42} {
					wg.Go(func() {
						out, err := tgt.Write(ctx, "r0", tok, fmt.Sprintf("v%d", tok))
						mu.Lock()
						outs[tok], results[tok] = err, out
						mu.Unlock()
						if tok == 42 {
							close(newerDone)
						}
					})
				}
				wg.Wait()
				r, err := tgt.Read(ctx, "r0")
				require.NoError(t, err)
				if iso == "" {
					require.NoError(t, outs[41])
					require.NoError(t, outs[42])
					assert.Equal(t, uint64(41), r.Token, "the stale write landed last")
					return
				}
				var failed, accepted []uint64
				for tok, err := range outs {
					if err != nil {
						assert.ErrorIs(t, err, targets.ErrDefinitelyNotApplied, "token %d", tok)
						assert.True(t, rolledBack(err), "token %d: %v", tok, err)
						failed = append(failed, tok)
					} else {
						assert.Equal(t, histories.Accepted, results[tok])
						accepted = append(accepted, tok)
					}
				}
				require.Len(t, failed, 1, "one of the two is refused: %v", outs)
				assert.Equal(t, accepted[0], r.Token, "the other one's write stands")
			})
		}
	}
}
