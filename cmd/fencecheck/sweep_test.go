package main

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/fencecheck/fencecheck/explore"
)

// TestSweepProgressLine: the live line shows the seeds done of how many,
// the runs per second, and the seeds that violated and were
// inconclusive.
func TestSweepProgressLine(t *testing.T) {
	t.Parallel()
	cases := []struct {
		p    explore.Progress
		want string
	}{
		{explore.Progress{Done: 600, Total: 10000, Violated: 1, Inconclusive: 2, Elapsed: 2 * time.Second},
			"seeds 600/10000  300 runs/s  violated 1  inconclusive 2  2s"},
		{explore.Progress{Done: 7, Elapsed: 0}, "seeds 7/…  0 runs/s  violated 0  inconclusive 0  0s"},
	}
	for _, tc := range cases {
		t.Run(tc.want, func(t *testing.T) {
			t.Parallel()
			var out bytes.Buffer
			update, stop := sweepProgressLine(&out)
			update(tc.p)
			stop()
			assert.Contains(t, out.String(), tc.want)
		})
	}
}
