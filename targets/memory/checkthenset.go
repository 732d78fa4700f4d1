package memory

import (
	"context"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/targets"
)

// CheckThenSet compares the token against the highest accepted, lets other
// work run, and only then writes, in a separate step. It is the article's
// "reading last_token, deciding the write is allowed and then updating in a
// separate unprotected operation", which recreates the race inside the
// receiver: two writers can both pass the check before either writes.
type CheckThenSet struct {
	table
	// Window runs between the check and the write. The harness sets it to
	// its scheduler's yield so that the race window is explored
	// deterministically; nil lets the Go scheduler decide.
	Window func(ctx context.Context, resource string, token uint64)
	// opens says whether the race window opens for a write; nil, it
	// opens for every write. When it does not, the check and the write
	// are one step, as in Fenced.
	opens func(resource string, token uint64, value string) bool
}

// NewCheckThenSet returns a receiver with the check-then-set race.
func NewCheckThenSet() *CheckThenSet { return &CheckThenSet{} }

// Write checks, runs the window, then writes.
func (c *CheckThenSet) Write(ctx context.Context, resource string, token uint64, value string) (histories.Outcome, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if c.opens != nil && !c.opens(resource, token, value) {
		return c.writeIf(resource, cell{value: value, token: token}, func(current uint64) bool { return token > current }), nil
	}
	current, _ := c.get(resource)
	if token <= current.token {
		return histories.Rejected, nil
	}
	if c.Window != nil {
		c.Window(ctx, resource, token)
	}
	c.put(resource, cell{value: value, token: token})
	return histories.Accepted, nil
}

// SetWindow sets what runs between the check and the write.
func (c *CheckThenSet) SetWindow(window func(ctx context.Context, resource string, token uint64)) {
	c.Window = window
}

// Immediate says whether the receiver answers without waiting: not once
// a window is set, which may sleep or wait (the harness's does).
func (c *CheckThenSet) Immediate() bool { return c.Window == nil }

// The capabilities the harness, the workers and verify look for.
var (
	_ targets.Windowed  = (*CheckThenSet)(nil)
	_ targets.Immediate = (*CheckThenSet)(nil)
	_ targets.Immediate = (*Fenced)(nil)
	_ targets.Immediate = (*Unfenced)(nil)
)
