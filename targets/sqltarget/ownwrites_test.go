package sqltarget

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/harness"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/targets"
)

// ownTable is the user's table the tests write to: rows keyed by id, and
// a version column that a MySQL upsert can bump so that an accepted write
// always changes the row.
const ownTable = "CREATE TABLE %[1]s (id VARCHAR(64) PRIMARY KEY, token BIGINT NOT NULL, value TEXT, version BIGINT NOT NULL DEFAULT 0)"

// ownRead is the read every case uses.
const ownRead = "SELECT value, token FROM %[1]s WHERE id = :resource"

// ownStatements returns a user's statements on a fresh table named table:
// created (with the rows r0…r3 at token 0 and no value when rows is set),
// and dropped at the end together with anything in drops.
func ownStatements(table, write string, rows bool, extraSetup, drops []string) Statements {
	setup := []string{fmt.Sprintf(ownTable, table)}
	if rows {
		setup = append(setup, "INSERT INTO "+table+" (id, token) VALUES ('r0', 0), ('r1', 0), ('r2', 0), ('r3', 0)")
	}
	for _, s := range extraSetup {
		setup = append(setup, fmt.Sprintf(s, table))
	}
	teardown := []string{"DROP TABLE IF EXISTS " + table}
	for _, d := range drops {
		teardown = append(teardown, fmt.Sprintf(d, table))
	}
	return Statements{Setup: setup, Write: []string{fmt.Sprintf(write, table)}, Read: fmt.Sprintf(ownRead, table), Teardown: teardown}
}

// openOwn opens spec with the user's statements, runs their set-up, and
// runs their tear-down when the test ends (it drops only what the set-up
// made).
func openOwn(t *testing.T, spec string, st Statements) *Target {
	t.Helper()
	ctx := context.Background()
	tgt, err := Open(ctx, spec, ownOptions(st))
	require.NoError(t, err)
	t.Cleanup(func() {
		assert.NoError(t, tgt.Teardown(ctx))
		assert.NoError(t, tgt.Close())
	})
	require.NoError(t, tgt.Setup(ctx))
	return tgt
}

// withParam adds a driver parameter to a spec.
func withParam(spec, param string) string {
	if strings.Contains(spec, "?") {
		return spec + "&" + param
	}
	return spec + "?" + param
}

type ownStep struct {
	token uint64
	value string
	want  histories.Outcome
}

// ownSteps are writes to one resource and what a read must show after
// them.
type ownSteps struct {
	steps []ownStep
	end   targets.Reading
}

var (
	// fenced under strict: a stale token and a repeat of the current one
	// are rejected.
	strictSteps = ownSteps{
		[]ownStep{{42, "new", histories.Accepted}, {41, "old", histories.Rejected}, {42, "dup", histories.Rejected}, {43, "newer", histories.Accepted}},
		targets.Reading{Found: true, Value: "newer", Token: 43, HasToken: true}}
	// fenced under accept-equal: the repeat of the same token and value
	// is accepted too, although it leaves the row as it was.
	equalSteps = ownSteps{
		[]ownStep{{42, "a", histories.Accepted}, {41, "old", histories.Rejected}, {42, "a", histories.Accepted}, {42, "c", histories.Accepted}},
		targets.Reading{Found: true, Value: "c", Token: 42, HasToken: true}}
	// the first writer wins (INSERT IGNORE, DO NOTHING): not fencing, but
	// each count must still be read right.
	firstSteps = ownSteps{
		[]ownStep{{42, "new", histories.Accepted}, {41, "old", histories.Rejected}, {43, "newer", histories.Rejected}},
		targets.Reading{Found: true, Value: "new", Token: 42, HasToken: true}}
)

// TestOwnWriteCounts runs the user's own write statements of every shape
// each engine counts, one write at a time against the real database, and
// checks that each count is read as the engine means it: for MySQL and
// MariaDB an INSERT … ON DUPLICATE KEY UPDATE with the spec as given (1
// inserted, 2 updated: accepted; 0 left as it was: rejected) and a plain
// UPDATE (rows matched); for PostgreSQL and SQLite the same shapes by
// their own syntax. The statements are the test's; the tables, and the
// procedure, have run-unique names and are dropped at the end.
func TestOwnWriteCounts(t *testing.T) {
	t.Parallel()
	all := []string{"mysql", "postgres", "sqlite"}
	cases := []struct {
		name     string
		dialects []string
		write    func(dialect string) string // %[1]s is the table
		rows     bool                        // the rows exist before the first write
		steps    ownSteps
		param    string   // a driver parameter the spec needs
		setup    []string // more set-up, %[1]s is the table
		drops    []string // what tear-down also drops
		mariadb  bool     // MariaDB syntax (RETURNING)
	}{
		{name: "upsert guarded", dialects: all, steps: strictSteps,
			write: func(d string) string { return guardedUpsert(d, ">") }},
		{name: "UPDATE guarded", dialects: all, rows: true, steps: strictSteps,
			write: fixed("UPDATE %[1]s SET value = :value, token = :token WHERE id = :resource AND token < :token")},
		{name: "UPDATE under accept-equal counts the row it matched", dialects: all, rows: true, steps: equalSteps,
			write: fixed("UPDATE %[1]s SET value = :value, token = :token WHERE id = :resource AND token <= :token")},

		{name: "upsert by INSERT … SELECT", dialects: []string{"mysql"}, steps: strictSteps,
			write: fixed("INSERT INTO %[1]s (id, token, value) SELECT :resource, :token, :value FROM DUAL ON DUPLICATE KEY UPDATE " +
				"value = IF(VALUES(token) > token, VALUES(value), value), token = IF(VALUES(token) > token, VALUES(token), token)")},
		{name: "upsert under accept-equal bumps a version", dialects: []string{"mysql"}, steps: equalSteps,
			write: fixed("INSERT INTO %[1]s (id, token, value) VALUES (:resource, :token, :value) ON DUPLICATE KEY UPDATE " +
				"version = IF(VALUES(token) >= token, version + 1, version), " +
				"value = IF(VALUES(token) >= token, VALUES(value), value), token = IF(VALUES(token) >= token, VALUES(token), token)")},
		{name: "REPLACE … SELECT guarded", dialects: []string{"mysql"}, steps: strictSteps,
			write: fixed("REPLACE INTO %[1]s (id, token, value) SELECT :resource, :token, :value FROM DUAL " +
				"WHERE NOT EXISTS (SELECT 1 FROM %[1]s WHERE id = :resource AND token >= :token)")},
		{name: "INSERT IGNORE", dialects: []string{"mysql"}, steps: firstSteps,
			write: fixed("INSERT IGNORE INTO %[1]s (id, token, value) VALUES (:resource, :token, :value)")},
		{name: "INSERT … SELECT … RETURNING", dialects: []string{"mysql"}, steps: firstSteps, mariadb: true,
			write: fixed("INSERT INTO %[1]s (id, token, value) SELECT :resource, :token, :value FROM DUAL " +
				"WHERE NOT EXISTS (SELECT 1 FROM %[1]s WHERE id = :resource) RETURNING id")},
		{name: "CALL of a procedure ending in a guarded UPDATE", dialects: []string{"mysql"}, rows: true, steps: strictSteps,
			param: "clientFoundRows=true", drops: []string{"DROP PROCEDURE IF EXISTS %[1]s_write"},
			setup: []string{"CREATE PROCEDURE %[1]s_write(IN r VARCHAR(64), IN k BIGINT, IN v TEXT) " +
				"UPDATE %[1]s SET value = v, token = k WHERE id = r AND token < k"},
			write: fixed("CALL %[1]s_write(:resource, :token, :value)")},

		{name: "the upsert with RETURNING", dialects: []string{"postgres", "sqlite"}, steps: strictSteps,
			write: func(d string) string { return guardedUpsert(d, ">") + " RETURNING token" }},
		{name: "MERGE guarded", dialects: []string{"postgres"}, steps: strictSteps,
			write: fixed("MERGE INTO %[1]s t USING (SELECT :resource::text AS id, :token::bigint AS token, :value::text AS value) s ON t.id = s.id " +
				"WHEN MATCHED AND t.token < s.token THEN UPDATE SET token = s.token, value = s.value " +
				"WHEN NOT MATCHED THEN INSERT (id, token, value) VALUES (s.id, s.token, s.value)")},
		{name: "ON CONFLICT DO NOTHING", dialects: []string{"postgres"}, steps: firstSteps,
			write: fixed("INSERT INTO %[1]s (id, token, value) VALUES (:resource, :token, :value) ON CONFLICT DO NOTHING")},
		{name: "REPLACE … SELECT guarded", dialects: []string{"sqlite"}, steps: strictSteps,
			write: fixed("REPLACE INTO %[1]s (id, token, value) SELECT :resource, :token, :value " +
				"WHERE NOT EXISTS (SELECT 1 FROM %[1]s WHERE id = :resource AND token >= :token)")},
		{name: "INSERT OR IGNORE", dialects: []string{"sqlite"}, steps: firstSteps,
			write: fixed("INSERT OR IGNORE INTO %[1]s (id, token, value) VALUES (:resource, :token, :value)")},
	}
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			spec := e.spec(t)
			dialect := strings.TrimSuffix(e.name, "-memory")
			for _, tc := range cases {
				if !slices.Contains(tc.dialects, dialect) {
					continue
				}
				t.Run(tc.name, func(t *testing.T) {
					ctx := context.Background()
					table := newTableName()
					s := spec
					if tc.param != "" {
						s = withParam(spec, tc.param)
					}
					tgt := openOwn(t, s, ownStatements(table, tc.write(dialect), tc.rows, tc.setup, tc.drops))
					if tc.mariadb {
						skipUnlessMariaDB(t, tgt)
					}
					for _, st := range tc.steps.steps {
						out, err := tgt.Write(ctx, "r0", st.token, st.value)
						require.NoError(t, err)
						assert.Equal(t, st.want, out, "token %d value %q", st.token, st.value)
					}
					r, err := tgt.Read(ctx, "r0")
					require.NoError(t, err)
					assert.Equal(t, tc.steps.end, r)
				})
			}
		})
	}
}

// fixed is a write that is the same in every dialect.
func fixed(write string) func(string) string { return func(string) string { return write } }

// skipUnlessMariaDB skips a case written in MariaDB's syntax on MySQL.
func skipUnlessMariaDB(t *testing.T, tgt *Target) {
	t.Helper()
	var version string
	require.NoError(t, tgt.db.QueryRowContext(context.Background(), "SELECT VERSION()").Scan(&version))
	if !strings.Contains(version, "MariaDB") {
		t.Skipf("the server is %s, not MariaDB: no INSERT … RETURNING", version)
	}
}

// guardedUpsert returns each dialect's upsert of the user's table, guarded
// by cmp (the comparison of the new token with the stored one that
// accepts: ">" is correct under strict, ">=" lets a repeat through) or by
// nothing when cmp is "".
func guardedUpsert(dialect, cmp string) string {
	switch dialect {
	case "mysql":
		if cmp == "" {
			return "INSERT INTO %[1]s (id, token, value) VALUES (:resource, :token, :value) ON DUPLICATE KEY UPDATE value = VALUES(value), token = VALUES(token)"
		}
		return fmt.Sprintf("INSERT INTO %%[1]s (id, token, value) VALUES (:resource, :token, :value) ON DUPLICATE KEY UPDATE "+
			"value = IF(VALUES(token) %[1]s token, VALUES(value), value), token = IF(VALUES(token) %[1]s token, VALUES(token), token)", cmp)
	case "postgres":
		where := ""
		if cmp != "" {
			where = " WHERE EXCLUDED.token " + cmp + " cur.token"
		}
		return "INSERT INTO %[1]s AS cur (id, token, value) VALUES (:resource, :token, :value) " +
			"ON CONFLICT (id) DO UPDATE SET token = EXCLUDED.token, value = EXCLUDED.value" + where
	default:
		where := ""
		if cmp != "" {
			where = " WHERE excluded.token " + cmp + " %[1]s.token"
		}
		return "INSERT INTO %[1]s (id, token, value) VALUES (:resource, :token, :value) " +
			"ON CONFLICT (id) DO UPDATE SET token = excluded.token, value = excluded.value" + where
	}
}

// TestOwnWritesInARun is `fencecheck run` with the user's own statements
// on every engine: a correct token-guarded upsert (MySQL's with the spec
// as given, no parameters) and a correct guarded UPDATE hold, and a
// broken one of each is found.
//
// What is certain, whatever the machine's speed: the workers write again
// with the same token after an accepted write (RepeatShare, half of the
// jobs), which under strict a correct statement rejects and a guard of >=
// or none accepts, and a write accepted after an accepted write of the
// same token had returned is a violation. Every answer is waited for
// (OpTimeout), so that those repeats are not lost as unknown outcomes
// under load. The pause and delay faults add stale writes on top (held
// until a newer token was accepted), which the broken statements without
// a guard accept too.
func TestOwnWritesInARun(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		write func(dialect string) string
		rows  bool
		want  judge.Verdict
	}{
		{"upsert with the correct guard holds", func(d string) string { return guardedUpsert(d, ">") }, false, judge.Held},
		{"upsert with >= under strict is found", func(d string) string { return guardedUpsert(d, ">=") }, false, judge.Violated},
		{"upsert without a guard is found", func(d string) string { return guardedUpsert(d, "") }, false, judge.Violated},
		{"UPDATE with the correct guard holds", func(string) string {
			return "UPDATE %[1]s SET value = :value, token = :token WHERE id = :resource AND token < :token"
		}, true, judge.Held},
		{"UPDATE without a guard is found", func(string) string {
			return "UPDATE %[1]s SET value = :value, token = :token WHERE id = :resource"
		}, true, judge.Violated},
	}
	for _, e := range engines {
		if e.memory {
			continue // the file database covers SQLite
		}
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			spec := e.spec(t)
			dialect := strings.TrimSuffix(e.name, "-memory")
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					tgt, err := Open(context.Background(), spec, ownOptions(ownStatements(newTableName(), tc.write(dialect), tc.rows, nil, nil)))
					require.NoError(t, err)
					defer tgt.Close()
					faults, err := nemesis.Parse("pause,delay")
					require.NoError(t, err)
					cfg := harness.DefaultConfig()
					cfg.SetLeaseTTL(30 * time.Millisecond)
					// The set-up creates the rows r0 … r3 that an
					// UPDATE needs; work, not time, bounds the run.
					cfg.Target.Receiver, cfg.Target.Name, cfg.Workload.Workers, cfg.Workload.ResourceNames = tgt, tgt.Name(), 8, []string{"r0", "r1", "r2", "r3"}
					cfg.Workload.Resources, cfg.Workload.Duration, cfg.Workload.Ops, cfg.Workload.RepeatShare, cfg.Workload.OpTimeout = 4, 0, 600, 0.5, 10*time.Second
					cfg.Nemesis.Faults, cfg.Runtime.Seed, cfg.Store.Dir, cfg.Gates.MinStale = faults, 1, schema.TempDir(t), 0
					res, err := harness.Run(context.Background(), cfg)
					require.NoError(t, err)
					t.Logf("%s, %s: %s; %d writes (%d accepted, %d rejected, %d unknown); %d repeats (%d accepted); %d stale writes (%d accepted)",
						e.name, tc.name, res.Verdict, res.Counts.Writes, res.Counts.Accepted, res.Counts.Rejected, res.Counts.UnknownWrites,
						res.Coverage.EqualTokenRepeats, res.Coverage.EqualTokenAccepted, res.Coverage.StaleWrites, res.Coverage.StaleAccepted)
					require.Equal(t, tc.want, res.Verdict, "%s\n%s", res.Reason, res.Summary())
					if tc.want == judge.Held {
						assert.Positive(t, res.Coverage.EqualTokenRepeats, "no repeat of a token was written")
						assert.Positive(t, res.Counts.Rejected, "no write was rejected")
					}
				})
			}
		})
	}
}
