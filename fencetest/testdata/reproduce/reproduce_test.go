// Package reproduce holds tests that fail on purpose, for
// fencetest's TestReproduceLine to run with go test and -fencetest.seed:
// the go tool skips testdata, so go test ./... never runs them.
package reproduce

import (
	"testing"
	"time"

	"github.com/fencecheck/fencecheck/fencetest"
	"github.com/fencecheck/fencecheck/harness"
	"github.com/fencecheck/fencecheck/targets/httptarget/receiver"
	"github.com/fencecheck/fencecheck/targets/memory"
)

// TestUnfencedMemory fails in the deterministic simulation.
func TestUnfencedMemory(t *testing.T) {
	tgt, err := memory.Open("unfenced")
	if err != nil {
		t.Fatal(err)
	}
	cfg := fencetest.Config(t, tgt)
	cfg.Runtime.Deterministic, cfg.Workload.Duration = true, 2*time.Second
	fencetest.Run(t, cfg)
}

// TestCheckThenSetHandler fails on a synctest bubble's clock: the
// reference receiver with its check-then-set bug, in the process.
func TestCheckThenSetHandler(t *testing.T) {
	o := receiver.DefaultOptions()
	o.Bug = receiver.CheckThenSet
	h, err := receiver.NewHandler(receiver.NewMemory(), o)
	if err != nil {
		t.Fatal(err)
	}
	opts := fencetest.DefaultOptions()
	opts.Synctest = true
	opts.Config = func(c *harness.Config) { c.Workload.Duration = 3 * time.Second }
	fencetest.Handler(t, h, opts)
}
