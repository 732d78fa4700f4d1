package sqltarget

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/targets"
	"github.com/fencecheck/fencecheck/targets/sqltarget/internal/placeholders"
)

var opTrace = targets.TraceContext{
	TraceID: [16]byte{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36},
	SpanID:  [8]byte{0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7},
}

const opComment = "/* traceparent=00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01 */ "

// TestWhichEnginesCarryTraces: PostgreSQL and MySQL/MariaDB keep a
// statement's text where a person looks (logs, the list of running
// statements); SQLite runs inside fencecheck and keeps none.
func TestWhichEnginesCarryTraces(t *testing.T) {
	for _, tc := range []struct {
		d    dialect
		want bool
	}{{postgres, true}, {mysqlDialect, true}, {sqlite, false}} {
		t.Run(tc.d.name, func(t *testing.T) {
			tgt := &Target{d: tc.d}
			assert.Equal(t, tc.want, tgt.CarriesTrace())
			q := placeholders.Query{Text: "SELECT 1"}
			got := tgt.traced(targets.WithTrace(context.Background(), opTrace), q).Text
			if tc.want {
				assert.Equal(t, opComment+"SELECT 1", got)
			} else {
				assert.Equal(t, "SELECT 1", got)
			}
			assert.Equal(t, "SELECT 1", tgt.traced(context.Background(), q).Text, "a statement outside an operation has no comment")
		})
	}
}

// TestTheCommentConfusesNoTranslator: the comment is added after the
// placeholders are translated, but a statement that holds it already (a
// user who copied one) translates exactly as it would without it, in
// every dialect: it holds nothing a placeholder, an outline or an
// engine's executable comment (/*! /*+) could be read from.
func TestTheCommentConfusesNoTranslator(t *testing.T) {
	stmts := []string{
		"INSERT INTO t (id, token, value) VALUES (:resource, :token, :value) ON CONFLICT (id) DO UPDATE SET token = excluded.token WHERE excluded.token > t.token RETURNING id",
		"UPDATE t SET value = :value, token = :token WHERE id = :resource AND token < :token",
		"SELECT value, token FROM t WHERE id = :resource",
	}
	for _, d := range []dialect{postgres, mysqlDialect, sqlite} {
		for _, stmt := range stmts {
			plain, err := placeholders.Translate(stmt, d.syntax)
			require.NoError(t, err)
			commented, err := placeholders.Translate(opComment+stmt, d.syntax)
			require.NoError(t, err, d.name)
			assert.Equal(t, opComment+plain.Text, commented.Text, d.name)
			assert.Equal(t, plain.Params, commented.Params, d.name)
			assert.Equal(t, plain.Outline, commented.Outline, d.name)
		}
	}
	assert.NotRegexp(t, `/\*[!+M]|[:?$]`, opComment)
}

// recorder is a database/sql driver around SQLite's that keeps the text
// of every statement sent to it.
type recorder struct {
	drv  driver.Driver
	dsn  string
	mu   sync.Mutex
	sent []string
}

func (r *recorder) Connect(context.Context) (driver.Conn, error) {
	c, err := r.drv.Open(r.dsn)
	if err != nil {
		return nil, err
	}
	return recordingConn{c, r}, nil
}

func (r *recorder) Driver() driver.Driver { return r.drv }

func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.sent
	r.sent = nil
	return out
}

// recordingConn offers only preparation, so that database/sql prepares
// every statement, and the recorder sees its text.
type recordingConn struct {
	driver.Conn
	r *recorder
}

func (c recordingConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	c.r.mu.Lock()
	c.r.sent = append(c.r.sent, query)
	c.r.mu.Unlock()
	return c.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, query)
}

func (c recordingConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	return c.Conn.(driver.ConnBeginTx).BeginTx(ctx, opts)
}

// recorded opens o on a SQLite file as a target that carries traces, as
// the server engines do, through a recorder: the statements a mode sends
// are the same Go code on every engine.
func recorded(t *testing.T, o Options) (*Target, *recorder) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "trace.db") // not validated: a SQLite database, not a history
	tgt := open(t, "sqlite://"+path, o)
	plain, err := sql.Open("sqlite", path)
	require.NoError(t, err)
	rec := &recorder{drv: plain.Driver(), dsn: path + "?_pragma=busy_timeout(5000)&_txlock=immediate"}
	require.NoError(t, plain.Close())
	db, orig := sql.OpenDB(rec), tgt.db
	t.Cleanup(func() { // before open's tear-down, which needs the pool it opened
		tgt.db = orig
		_ = db.Close()
	})
	tgt.db, tgt.d.traces = db, true
	return tgt, rec
}

// TestEveryStatementOfAnOperationStartsWithItsTraceparent: each mode's
// statements, the read's and a write without a token's all start with the
// comment, and nothing else is sent but BEGIN and COMMIT.
func TestEveryStatementOfAnOperationStartsWithItsTraceparent(t *testing.T) {
	t.Parallel()
	table := newTableName()
	own := txStatements(table, "SELECT 1 FROM %[1]s WHERE id = :resource AND token < :token",
		"UPDATE %[1]s SET version = version + 1 WHERE id = :resource", "UPDATE %[1]s SET value = :value, token = :token WHERE id = :resource")
	cases := []struct {
		name string
		opts Options
		op   func(ctx context.Context, tgt *Target) error
		n    int // statements sent
	}{
		{"atomic write", DefaultOptions(), func(ctx context.Context, tgt *Target) error { _, err := tgt.Write(ctx, "r1", 5, "v"); return err }, 1},
		{"read", DefaultOptions(), func(ctx context.Context, tgt *Target) error { _, err := tgt.Read(ctx, "r1"); return err }, 1},
		{"write without a token", DefaultOptions(), func(ctx context.Context, tgt *Target) error {
			_, err := tgt.WriteWithoutToken(ctx, "r1", "v")
			return err
		}, 1},
		{"check-then-set", modeOptions(ModeCheckThenSet), func(ctx context.Context, tgt *Target) error { _, err := tgt.Write(ctx, "r1", 5, "v"); return err }, 2},
		{"a transaction of the user's", ownOptions(own), func(ctx context.Context, tgt *Target) error { _, err := tgt.Write(ctx, "r1", 5, "v"); return err }, 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tgt, rec := recorded(t, tc.opts)
			require.NoError(t, tc.op(targets.WithTrace(context.Background(), opTrace), tgt))
			sent := rec.take()
			assert.Len(t, sent, tc.n, "%q", sent)
			for _, s := range sent {
				assert.True(t, strings.HasPrefix(s, opComment), "%q", s)
			}
			require.NoError(t, tc.op(context.Background(), tgt))
			for _, s := range rec.take() {
				assert.NotContains(t, s, "traceparent", "a statement outside an operation")
			}
		})
	}
}

// TestTracedStatementsRunOnTheServers: with their comments, the
// statements of every mode still run and answer as they did, on
// PostgreSQL and MariaDB/MySQL.
func TestTracedStatementsRunOnTheServers(t *testing.T) {
	t.Parallel()
	steps := []struct {
		token uint64
		want  histories.Outcome
	}{{42, histories.Accepted}, {41, histories.Rejected}, {42, histories.Rejected}, {43, histories.Accepted}}
	table := newTableName()
	own := txStatements(table, "SELECT 1 FROM %[1]s WHERE id = :resource AND token < :token",
		"UPDATE %[1]s SET version = version + 1 WHERE id = :resource", "UPDATE %[1]s SET value = :value, token = :token WHERE id = :resource")
	for _, e := range engines {
		if e.server == nil {
			continue
		}
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			for name, o := range map[string]Options{"atomic": DefaultOptions(), "check-then-set": modeOptions(ModeCheckThenSet), "own transaction": ownOptions(own)} {
				t.Run(name, func(t *testing.T) {
					var tgt *Target
					if o.Mode == "" {
						tgt = openOwn(t, e.spec(t), o.Statements)
					} else {
						tgt = open(t, e.spec(t), o)
					}
					require.True(t, tgt.CarriesTrace())
					var held targets.Reading
					for i, s := range steps {
						tc := opTrace
						tc.TraceID[0] = byte(i)
						ctx := targets.WithTrace(context.Background(), tc)
						value := fmt.Sprintf("v%d", i)
						out, err := tgt.Write(ctx, "r1", s.token, value)
						require.NoError(t, err, "step %d", i)
						assert.Equal(t, s.want, out, "step %d: token %d", i, s.token)
						if out == histories.Accepted {
							held = targets.Reading{Found: true, Value: value, Token: s.token, HasToken: true}
						}
						r, err := tgt.Read(ctx, "r1")
						require.NoError(t, err)
						assert.Equal(t, held, r, "step %d", i)
					}
				})
			}
		})
	}
}

// TestTheServerShowsTheComment: while a traced write waits for a row
// lock the test holds, the server's list of running statements
// (pg_stat_activity, MariaDB/MySQL's processlist) shows it with its
// traceparent, where a person looking at the server finds it.
func TestTheServerShowsTheComment(t *testing.T) {
	t.Parallel()
	running := map[string]string{
		"postgres": "SELECT count(*) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND query LIKE $1",
		"mysql":    "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID <> CONNECTION_ID() AND INFO LIKE ?",
	}
	for _, e := range engines {
		if e.server == nil {
			continue
		}
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			o := DefaultOptions()
			o.Timeout = time.Minute // the write waits for the test's lock
			tgt := open(t, e.spec(t), o)
			ctx := context.Background()
			_, err := tgt.Write(ctx, "r1", 1, "v1")
			require.NoError(t, err)

			lock, err := tgt.db.BeginTx(ctx, nil)
			require.NoError(t, err)
			defer func() { _ = lock.Rollback() }()
			rows, err := lock.QueryContext(ctx, "SELECT token FROM "+tgt.table+" WHERE resource = 'r1' FOR UPDATE")
			require.NoError(t, err)
			require.NoError(t, rows.Close())

			type answer struct {
				out histories.Outcome
				err error
			}
			done := make(chan answer, 1)
			go func() {
				out, err := tgt.Write(targets.WithTrace(ctx, opTrace), "r1", 2, "v2")
				done <- answer{out, err}
			}()
			pattern := "%traceparent=" + opTrace.Traceparent() + "%"
			require.Eventually(t, func() bool {
				var n int
				return tgt.db.QueryRowContext(ctx, running[e.name], pattern).Scan(&n) == nil && n == 1
			}, 30*time.Second, 10*time.Millisecond, "the waiting write is listed with its traceparent")
			require.NoError(t, lock.Rollback())
			a := <-done
			require.NoError(t, a.err)
			assert.Equal(t, histories.Accepted, a.out)
		})
	}
}
