package targets

import (
	"context"

	"github.com/fencecheck/fencecheck/logscan"
)

// The optional capabilities of a Target, beside Setupper, Teardowner,
// TokenDomain, TokenlessWriter and TraceCarrier: each is a small interface
// the harness, the workers or verify find by type assertion, and a target
// that lacks one gets the behaviour its comment names.

// Windowed is a Target whose receiver has a race window between its
// token check and its write that the caller can widen: the deliberately
// broken check-then-set receivers (memory://check-then-set, the SQL and
// Redis check-then-set modes). SetWindow installs window, which the
// receiver calls inside that window with the write's resource and token;
// nil removes it.
//
// The harness installs one for every run, so that the nemesis's
// WindowHolder faults can hold a write there and the deterministic
// simulation explores the race on purpose; verify's check-then-set-race
// scenario widens it for its racing writers. A target without it has no
// window anyone can widen: a race its receiver has happens only as often
// as the scheduler makes it, and a correct receiver has none.
type Windowed interface {
	SetWindow(window func(ctx context.Context, resource string, token uint64))
}

// RunDirUser is a Target that keeps files of its own beside a run's
// history: a receiver process's output (receiver.log), a SQL driver's
// messages (sql.log). UseRunDir is called with the run directory before
// Setup: by the harness for each run, by verify for its battery. A target
// without it writes nothing into the run directory.
type RunDirUser interface {
	UseRunDir(dir string)
}

// Failing is a Target that can fail on its own in the middle of a run: a
// receiver process that exited. Failed is closed then, and Err says why
// (nil before).
//
// The harness watches it and ends the run with Err instead of a verdict,
// since whatever answered afterwards is not what the run tests; verify
// refuses its table for the same reason, unless it can start the
// receiver again (verify.Reviver): it then fails the scenario the
// receiver exited during and plays on. A target without it is taken to
// stay up: its failures are errors of its calls, unknown outcomes.
type Failing interface {
	Failed() <-chan struct{}
	Err() error
}

// LogScanner is a Target whose receiver writes a log fencecheck can read
// (a receiver process's receiver.log): ScanLog reads it, once the
// receiver has stopped, for signs of a bug (a panic, a data race, the
// user's patterns), evidence the history cannot hold, as in Jepsen's
// log-file-pattern checker.
//
// The harness and verify call it after the tear-down and report what it
// found beside the verdict. A target without it has no log to read, and
// no run or battery claims anything about one.
type LogScanner interface {
	ScanLog() (logscan.Report, error)
}

// Immediate is a Target that answers without waiting (memory://): its
// Read and Write take a lock at most and never wait on the run's runtime.
// Immediate says whether that holds now: a check-then-set receiver with a
// window installed waits in it.
//
// The workers call it to send such a target's requests on their own task,
// which saves a goroutine, a gate and a timer per operation; a target
// without it gets each request as a task of its own, bounded by the
// operation timeout, which a request that may block needs.
type Immediate interface {
	Immediate() bool
}
