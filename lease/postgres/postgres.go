// Package pglease issues leases and fencing tokens from PostgreSQL: each
// run creates a sequence fencecheck_lease_<hex>_seq, whose nextval is the
// token, and a table fencecheck_lease_<hex> with one row per resource
// (resource, token, holder, expires_at). A grant is one upsert in one
// transaction:
//
//	INSERT ... VALUES (resource, nextval(seq), worker, now() + ttl)
//	ON CONFLICT (resource) DO UPDATE ...
//	WHERE cur.expires_at <= now() AND cur.token < EXCLUDED.token
//	RETURNING token
//
// and the token is used only once that transaction has committed.
// PostgreSQL's documentation says why: a sequence is not transactional,
// and its advance reaches the write-ahead log with the transaction that
// used it, so after a crash a value that no committed transaction used
// can be handed out again. A token that left the database before its
// commit could be issued twice. For the same reason the service's
// sessions run with synchronous_commit on, unless the spec sets it: with
// it off, a commit is acknowledged before it is durable.
//
// The row of a resource is never deleted, only marked free (expires_at
// -infinity): it keeps the last token granted, and the WHERE refuses any
// token not above it. A nextval is taken before the upsert waits for the
// row's lock, so without that guard a grant delayed by a lease's length
// could commit a token below one granted meanwhile. Failed attempts still
// consume sequence values: tokens have gaps, never repeats.
//
// Tokens are BIGINT: the sequence ends at 2^63-1, where nextval fails
// ("reached maximum value of sequence") and the issuer grants no more.
// Expiry is judged on the database's clock (now()).
package pglease

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/fencecheck/fencecheck/internal/redact"
	"github.com/fencecheck/fencecheck/internal/unique"
	"github.com/fencecheck/fencecheck/lease"
)

// NewIssuer returns the issuer of a Polled lease service on the PostgreSQL database a
// postgres:// or postgresql:// URL names (pgx parses it, libpq's
// parameters included).
// It connects in Open.
func NewIssuer(spec string, opts lease.PollOptions) *lease.PolledIssuer {
	return &lease.PolledIssuer{Spec: spec, Opts: opts, Connect: func(ctx context.Context, spec string) (lease.Store, error) {
		return Connect(ctx, spec)
	}}
}

// Store is a run's lease table and token sequence in one database.
type Store struct {
	// pool reaches the database; Repoint replaces it when the issuer
	// moves to a promoted standby.
	pool       atomic.Pointer[pgxpool.Pool]
	table, seq string
	grant      string
}

// db is the pool the store's calls use now.
func (s *Store) db() *pgxpool.Pool { return s.pool.Load() }

// openPool connects to the database spec names, with synchronous_commit
// on unless spec sets it.
func openPool(ctx context.Context, spec string) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(spec)
	if err != nil {
		return nil, err
	}
	if _, ok := cfg.ConnConfig.RuntimeParams["synchronous_commit"]; !ok {
		cfg.ConnConfig.RuntimeParams["synchronous_commit"] = "on"
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if err := pool.Ping(ctx); err != nil { // the pool connects lazily
		pool.Close()
		return nil, err
	}
	return pool, nil
}

// Repoint moves the store to the database spec names, which must already
// hold the run's table and sequence (a standby promoted in place of the
// primary): later calls go there, and the old pool is closed.
func (s *Store) Repoint(ctx context.Context, spec string) error {
	pool, err := openPool(ctx, spec)
	if err != nil {
		return redact.Error(fmt.Errorf("postgres issuer %s: %w", redact.Spec(spec), err), redact.Secrets(spec, nil))
	}
	s.pool.Swap(pool).Close()
	return nil
}

// Connect connects to the database spec names and creates the run's
// sequence and table. Its errors carry no password.
func Connect(ctx context.Context, spec string) (*Store, error) {
	secrets := redact.Secrets(spec, nil)
	fail := func(err error) error {
		return redact.Error(fmt.Errorf("postgres issuer %s: %w", redact.Spec(spec), err), secrets)
	}
	pool, err := openPool(ctx, spec)
	if err != nil {
		return nil, fail(err)
	}
	name := "fencecheck_lease_" + unique.Hex(8)
	s := &Store{table: name, seq: name + "_seq"}
	s.pool.Store(pool)
	s.grant = fmt.Sprintf(`INSERT INTO %[1]s AS cur (resource, token, holder, expires_at)
VALUES ($1, nextval('%[2]s'), $2, now() + $3::bigint * interval '1 microsecond')
ON CONFLICT (resource) DO UPDATE SET token = EXCLUDED.token, holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
WHERE cur.expires_at <= now() AND cur.token < EXCLUDED.token
RETURNING token`, s.table, s.seq)
	create := fmt.Sprintf(`CREATE SEQUENCE %[2]s AS BIGINT MINVALUE 1 NO CYCLE;
CREATE TABLE %[1]s (resource TEXT PRIMARY KEY, token BIGINT NOT NULL, holder INT NOT NULL, expires_at TIMESTAMPTZ NOT NULL)`, s.table, s.seq)
	// The run's table and sequence are made durable whatever the
	// sessions' synchronous_commit: the grants are what is under test.
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SET LOCAL synchronous_commit = on"); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, create)
		return err
	})
	if err != nil {
		err = fail(fmt.Errorf("create the lease table %s: %w", s.table, err))
		if cerr := s.Close(); cerr != nil {
			err = errors.Join(err, fail(cerr))
		}
		return nil, err
	}
	return s, nil
}

// Table is the name of the run's lease table; Sequence its sequence.
func (s *Store) Table() string    { return s.table }
func (s *Store) Sequence() string { return s.seq }

// Grant implements lease.Store: the upsert, committed before the token
// is returned.
func (s *Store) Grant(ctx context.Context, resource string, worker int, ttl time.Duration) (uint64, bool, error) {
	var token int64
	err := pgx.BeginFunc(ctx, s.db(), func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, s.grant, resource, worker, ttl.Microseconds()).Scan(&token)
	})
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return 0, false, nil
	case err != nil:
		return 0, false, fmt.Errorf("postgres grant: %w", unanswered(err))
	}
	return uint64(token), true, nil
}

// End implements lease.Store: it marks the row free if it still holds
// token and has not expired.
func (s *Store) End(ctx context.Context, resource string, token uint64) (bool, error) {
	tag, err := s.db().Exec(ctx, fmt.Sprintf(`UPDATE %s SET expires_at = '-infinity'
WHERE resource = $1 AND token = $2 AND expires_at > now()`, s.table), resource, int64(token))
	if err != nil {
		return false, fmt.Errorf("postgres end lease: %w", unanswered(err))
	}
	return tag.RowsAffected() == 1, nil
}

// Renew implements lease.Store: the row's expiry moves to ttl from now,
// on the database's clock, if it still holds token and has not expired.
func (s *Store) Renew(ctx context.Context, resource string, token uint64, ttl time.Duration) (bool, error) {
	tag, err := s.db().Exec(ctx, fmt.Sprintf(`UPDATE %s SET expires_at = now() + $3::bigint * interval '1 microsecond'
WHERE resource = $1 AND token = $2 AND expires_at > now()`, s.table), resource, int64(token), ttl.Microseconds())
	if err != nil {
		return false, fmt.Errorf("postgres renew lease: %w", unanswered(err))
	}
	return tag.RowsAffected() == 1, nil
}

// Left implements lease.Store, on the database's clock.
func (s *Store) Left(ctx context.Context, resource string, token uint64) (time.Duration, error) {
	var us int64
	err := s.db().QueryRow(ctx, fmt.Sprintf(`SELECT CASE WHEN expires_at > now()
THEN ceil(extract(epoch FROM expires_at - now()) * 1000000)::bigint ELSE 0 END
FROM %s WHERE resource = $1 AND token = $2`, s.table), resource, int64(token)).Scan(&us)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return 0, nil
	case err != nil:
		return 0, fmt.Errorf("postgres lease TTL: %w", unanswered(err))
	}
	return time.Duration(us) * time.Microsecond, nil
}

// Floor implements lease.FloorStore: the sequence is set so that its next
// value is above token. The sequence serves every resource of the run, so
// the floor raises them all; they only grow. A BIGINT cannot pass
// 2^63-1: above it, the tokens stay as they are.
func (s *Store) Floor(ctx context.Context, _ string, token uint64) error {
	if token > math.MaxInt64 {
		return fmt.Errorf("postgres floor: token %d is above BIGINT", token)
	}
	_, err := s.db().Exec(ctx, fmt.Sprintf(`SELECT setval('%[1]s', $1) FROM %[1]s
WHERE (CASE WHEN is_called THEN last_value ELSE last_value - 1 END) < $1`, s.seq), int64(token))
	if err != nil {
		return fmt.Errorf("postgres floor: %w", unanswered(err))
	}
	return nil
}

// unanswered marks err as lease.ErrUnavailable when the server did not
// answer the call: no connection, one that broke on the way (a server
// killed, or restarted since the pool made it), a call that timed out (a
// frozen server), or a server that refuses connections while it starts
// up, recovers or shuts down (SQLSTATE class 08, 57P01-57P03, 53300). An
// error the server answered with (a sequence at its end) stays as it is.
func unanswered(err error) error {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return lease.Unavailable(err)
	}
	switch pgErr.Code {
	case "57P01", "57P02", "57P03", "53300":
		return lease.Unavailable(err)
	}
	if strings.HasPrefix(pgErr.Code, "08") {
		return lease.Unavailable(err)
	}
	return err
}

// Close drops the run's table and sequence and disconnects.
func (s *Store) Close() error {
	defer func() { s.db().Close() }()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := s.db().Exec(ctx, fmt.Sprintf("DROP TABLE IF EXISTS %s; DROP SEQUENCE IF EXISTS %s", s.table, s.seq)); err != nil {
		return fmt.Errorf("postgres drop the lease table %s: %w", s.table, err)
	}
	return nil
}
