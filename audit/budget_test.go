package audit

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestBudgetWindows: each step may run until its window's end, whatever
// the steps before it spent: an early step's spare time goes to the next,
// and a step that overran leaves the next one less, down to nothing.
func TestBudgetWindows(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name    string
		total   time.Duration
		elapsed time.Duration
		step    int
		left    time.Duration
		bounded bool
	}{
		{"no budget", 0, time.Hour, StepPausedWorker, 0, false},
		{"the sequence's window at the start", 10 * time.Minute, 0, StepSequence, time.Minute, true},
		{"the paused-worker test gets what the batteries left", 10 * time.Minute, time.Minute, StepPausedWorker, 7*time.Minute + 30*time.Second, true},
		{"the fixes after an overrun", 10 * time.Minute, 9 * time.Minute, StepFixes, time.Minute, true},
		{"nothing left", 10 * time.Minute, 11 * time.Minute, StepFixes, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now := start
			b := newBudget(tc.total, func() time.Time { return now })
			now = now.Add(tc.elapsed)
			left, bounded := b.window(tc.step)
			assert.Equal(t, tc.bounded, bounded)
			assert.Equal(t, tc.left, left)
		})
	}
}

// TestBudgetSharesAddUp: the steps' shares, as the report shows them,
// add up to the whole budget.
func TestBudgetSharesAddUp(t *testing.T) {
	t.Parallel()
	b := newBudget(20*time.Minute, time.Now)
	var sum time.Duration
	for s := StepIssuer; s <= StepLimits; s++ {
		sum += b.share(s)
	}
	assert.Equal(t, 20*time.Minute, sum)
	assert.Equal(t, 11*time.Minute, b.share(StepPausedWorker))
}
