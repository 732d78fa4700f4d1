package sqltarget

import (
	"context"
	"fmt"
)

// writeTurns hands out the turn to write to a SQLite database, one
// writer of this process at a time. SQLite itself admits one writer at a
// time; a writer that finds the lock taken waits in SQLite's busy
// handler, which sleeps (1, 2, 5, 10 ms and more) rather than being woken
// when the lock is released, so that with a few workers writing at once
// most of a run's time went to writers sleeping while nobody wrote, and
// its throughput depended on how the writes happened to collide. Queued
// here, the next writer starts as soon as the last one is done, and the
// busy handler is left for writers in other processes (a receiver
// sharing the file). What a write does is unchanged: each statement, or
// transaction, still runs alone on its connection, in autocommit or
// between BEGIN IMMEDIATE and COMMIT, and check-then-set takes its turn
// for its update only, after the read and the window, so that its race
// stays open. It pays on BenchmarkSQLPlainLoop/sqlite and
// BenchmarkSQLHarness/sqlite (docs/performance.md, SQL receivers).
//
// A nil writeTurns (the servers, which queue writers themselves) always
// gives the turn at once.
type writeTurns chan struct{}

// newWriteTurns returns the turns of a database with one writer.
func newWriteTurns() writeTurns { return make(writeTurns, 1) }

// take waits for the turn until ctx ends, and returns the function that
// gives it back. A write that could not have its turn was never sent.
func (w writeTurns) take(ctx context.Context) (release func(), err error) {
	if w == nil {
		return func() {}, nil
	}
	select { // a free turn is taken, whatever ctx says
	case w <- struct{}{}:
		return func() { <-w }, nil
	default:
	}
	select {
	case w <- struct{}{}:
		return func() { <-w }, nil
	case <-ctx.Done():
		return nil, notApplied(fmt.Errorf("waiting for the turn to write: %w", ctx.Err()))
	}
}
