package nemesis

import (
	"context"
	"testing"
	"time"

	"github.com/fencecheck/fencecheck/nemesis/internal/fakeenv"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseScript(t *testing.T) {
	t.Parallel()
	sc, err := ParseScript("2s:-pause, 500ms:+pause,1s:+delay")
	require.NoError(t, err)
	assert.Equal(t, []Step{{500 * time.Millisecond, "pause", true}, {time.Second, "delay", true}, {2 * time.Second, "pause", false}}, sc.Steps)
	faults, _ := Parse("pause")
	assert.ErrorContains(t, sc.Validate(faults), `"delay"`)

	for _, bad := range []string{"pause", "1s:pause", "x:+pause", "-1s:+pause", "1s:+"} {
		_, err := ParseScript(bad)
		assert.Error(t, err, bad)
	}
}

// TestScriptRun: each step switches its fault at its offset from the
// start of the run, recording the window's edge; the script returns after
// its last step and leaves the faults as they are.
func TestScriptRun(t *testing.T) {
	t.Parallel()
	sc, err := ParseScript("0s:+pause,10ms:+delay,30ms:-pause,30ms:-pause,50ms:+pause")
	require.NoError(t, err)
	pause, delay := NewPause(), NewDelay()
	faults := []Fault{pause, delay}
	require.NoError(t, sc.Validate(faults))
	env := fakeenv.New()
	took := simulate(t, env, func() { sc.Run(context.Background(), env, faults) })
	assert.Equal(t, 50*time.Millisecond, took, "returns after the last step")
	assert.Equal(t, []string{"0s +pause", "10ms +delay", "30ms -pause", "50ms +pause"}, env.Edges(),
		"a step that changes nothing records nothing")
	assert.True(t, pause.Active())
	assert.True(t, delay.Active(), "left on until the fault phase ends")
}

// TestScriptRunStopsWithItsContext: a script whose run ends before a step
// returns without taking it.
func TestScriptRunStopsWithItsContext(t *testing.T) {
	t.Parallel()
	sc, err := ParseScript("10ms:+pause,1h:-pause")
	require.NoError(t, err)
	pause := NewPause()
	env := fakeenv.New()
	ctx, cancel := context.WithCancel(context.Background())
	simulate(t, env, func() {
		env.Sim.AfterFunc(20*time.Millisecond, cancel)
		sc.Run(ctx, env, []Fault{pause})
	})
	assert.Equal(t, []string{"10ms +pause"}, env.Edges())
	assert.True(t, pause.Active(), "the harness's StopAll switches it off, not the script")
}

// TestScriptStringParsesBack: a run records its script as the text
// ParseScript reads, so that the recorded schedule repeats it.
func TestScriptStringParsesBack(t *testing.T) {
	t.Parallel()
	for _, text := range []string{"500ms:+pause,2s:-pause,2s:+delay", "0s:+pause,0s:+delay"} {
		sc, err := ParseScript(text)
		if err != nil {
			t.Fatal(err)
		}
		if got := sc.String(); got != text {
			t.Errorf("ParseScript(%q).String() = %q", text, got)
		}
	}
}
