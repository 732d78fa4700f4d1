package sqltarget

import (
	"context"

	"github.com/fencecheck/fencecheck/targets"
	"github.com/fencecheck/fencecheck/targets/sqltarget/internal/placeholders"
)

// CarriesTrace implements targets.TraceCarrier: on PostgreSQL and
// MySQL/MariaDB every statement an operation sends (the write, a
// transaction's guard and statements, check-then-set's read and update,
// the read) starts with the comment
//
//	/* traceparent=00-<trace id>-<span id>-01 */
//
// which the server keeps with the statement's text: PostgreSQL in
// pg_stat_activity.query and in its statement and error logs, MySQL and
// MariaDB in the general and slow query logs and the processlist. BEGIN
// and COMMIT, which database/sql sends itself, carry none. SQLite carries
// no trace: it runs inside fencecheck and keeps no log a person could
// search, so an id in the history would name nothing to find.
//
// The comment is put before the translated statement, so the placeholder
// translator never reads it; it holds only hex digits and dashes, nothing
// a driver or engine could take for a placeholder, and starts "/* " (with
// a space), not MySQL's "/*!" or "/*+", which the server would execute or
// read as a hint.
//
// The text of every statement is then unique: pgx's default mode would
// prepare each one anew, a round trip more (openPostgres uses its exec
// mode instead, which does not prepare); go-sql-driver/mysql prepares
// every statement with arguments anyway.
func (t *Target) CarriesTrace() bool { return t.d.traces }

// traced returns q with the comment of the operation ctx belongs to in
// front, when the target carries traces and ctx has one.
func (t *Target) traced(ctx context.Context, q placeholders.Query) placeholders.Query {
	if tc, ok := targets.TraceFrom(ctx); ok && t.d.traces {
		q.Text = traceComment(tc) + q.Text
	}
	return q
}

// traceComment is the comment a statement of an operation starts with.
func traceComment(tc targets.TraceContext) string {
	return "/* traceparent=" + tc.Traceparent() + " */ "
}
