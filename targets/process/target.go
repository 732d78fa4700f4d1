package process

import (
	"context"
	"errors"
	"fmt"

	"github.com/fencecheck/fencecheck/logscan"
	"github.com/fencecheck/fencecheck/targets"
)

// Target is a target whose receiver runs as a child process: Setup starts
// it and waits until it is ready, Teardown stops it, and everything else
// goes to the inner target.
type Target struct {
	targets.Target
	Child *Child
}

// NewTarget runs child as the receiver behind inner.
func NewTarget(inner targets.Target, child *Child) *Target {
	return &Target{Target: inner, Child: child}
}

// UseRunDir sends the child's output to the run directory.
func (t *Target) UseRunDir(dir string) { t.Child.SetLogDir(dir) }

// Setup starts the receiver.
func (t *Target) Setup(ctx context.Context) error {
	if err := t.Child.Start(ctx); err != nil {
		return fmt.Errorf("receiver process: %w", err)
	}
	return nil
}

// Teardown stops the receiver and tears the inner target down, and
// reports each of the two that failed.
func (t *Target) Teardown(ctx context.Context) error {
	var errs []error
	if err := t.Child.Stop(stopGrace); err != nil {
		errs = append(errs, fmt.Errorf("stop the receiver process (it may still be running): %w", err))
	}
	if td, ok := t.Target.(targets.Teardowner); ok {
		errs = append(errs, td.Teardown(ctx))
	}
	return errors.Join(errs...)
}

// ScanLog reads the receiver's log for the signs of a bug
// (Child.ScanLog).
func (t *Target) ScanLog() (logscan.Report, error) { return t.Child.ScanLog() }

// Restart crashes the receiver (SIGKILL) and starts it again.
func (t *Target) Restart(ctx context.Context) error { return t.Child.Restart(ctx) }

// Down says why the receiver is not running now, nil while it runs
// (Child.Down).
func (t *Target) Down() error { return t.Child.Down() }

// StartAgain starts the receiver again after it exited on its own
// (Child.StartAgain).
func (t *Target) StartAgain(ctx context.Context) error { return t.Child.StartAgain(ctx) }

// Err says how the receiver exited on its own, if it did: whatever
// answered afterwards was not the receiver under test.
func (t *Target) Err() error { return t.Child.Err() }

// Failed is closed when the receiver exits on its own.
func (t *Target) Failed() <-chan struct{} { return t.Child.Failed() }

// The capabilities the harness and verify look for.
var (
	_ targets.RunDirUser = (*Target)(nil)
	_ targets.Failing    = (*Target)(nil)
	_ targets.LogScanner = (*Target)(nil)
)
