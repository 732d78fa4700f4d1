package nemesis

import (
	"testing"

	"github.com/fencecheck/fencecheck/nemesis/internal/fakeenv"
	"github.com/stretchr/testify/assert"
)

// TestStopAll: StopAll switches every fault off and records a closing
// edge only for the windows that were open.
func TestStopAll(t *testing.T) {
	t.Parallel()
	on, off := NewPause(), NewDelay()
	on.SetActive(true)
	env := fakeenv.New()
	simulate(t, env, func() { StopAll(env, []Fault{on, off}) })
	assert.False(t, on.Active())
	assert.False(t, off.Active())
	assert.Equal(t, []string{"0s -pause"}, env.Edges())
	assert.Equal(t, "window closes", env.LastDetail())
	assert.Equal(t, -1, env.Events[0].Process, "the nemesis is no client process")
}
