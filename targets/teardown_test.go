package targets

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fencecheck/fencecheck/histories"
)

// leftBehind is a target whose tear-down fails as errs say.
type leftBehind struct{ errs error }

func (leftBehind) Write(context.Context, string, uint64, string) (histories.Outcome, error) {
	return histories.Accepted, nil
}
func (leftBehind) Read(context.Context, string) (Reading, error) { return Reading{}, nil }
func (l leftBehind) Teardown(context.Context) error              { return l.errs }

// noTeardown is a target without a tear-down.
type noTeardown struct{}

func (noTeardown) Write(context.Context, string, uint64, string) (histories.Outcome, error) {
	return histories.Accepted, nil
}
func (noTeardown) Read(context.Context, string) (Reading, error) { return Reading{}, nil }

// TestTeardownWarnsOncePerFailure: each thing a tear-down left behind is
// one warning naming the target, escaped for a terminal; a target
// without a tear-down, or one that succeeds, gives none.
func TestTeardownWarnsOncePerFailure(t *testing.T) {
	t.Parallel()
	two := errors.Join(errors.New("table t1 was left behind"), errors.New("process 42 still runs\x1b[2J"))
	assert.Equal(t, []string{"tear down db: table t1 was left behind", `tear down db: process 42 still runs\x1b[2J`},
		Teardown(context.Background(), leftBehind{two}, "db"))
	assert.Nil(t, Teardown(context.Background(), leftBehind{}, "db"))
	assert.Nil(t, Teardown(context.Background(), noTeardown{}, "db"))
}
