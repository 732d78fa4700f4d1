package sqltarget

import "database/sql"

// poolSize is the number of connections for a run with workers workers:
// one each, and as many again for writes still on their way after their
// worker stopped waiting (a worker that records an unknown outcome goes on
// with its next job while the old statement may still hold a connection),
// and for the harness's own reads.
func poolSize(workers int) int { return 2*max(workers, 1) + 1 }

// sizePool caps the pool at n connections and keeps them all open between
// statements, so that a run does not pay for a new connection per write.
func sizePool(db *sql.DB, n int) {
	db.SetMaxOpenConns(n)
	db.SetMaxIdleConns(n)
}
