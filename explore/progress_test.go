package explore

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestProgressWords: a sweep's live line shows the seeds done of how many,
// the runs per second, and the seeds that violated and were
// inconclusive.
func TestProgressWords(t *testing.T) {
	t.Parallel()
	cases := []struct {
		p    Progress
		want string
	}{
		{Progress{Done: 600, Total: 10000, Violated: 1, Inconclusive: 2, Elapsed: 2 * time.Second},
			"seeds 600/10000  300 runs/s  violated 1  inconclusive 2  2s"},
		{Progress{Done: 7, Elapsed: 0}, "seeds 7/…  0 runs/s  violated 0  inconclusive 0  0s"},
	}
	for _, tc := range cases {
		t.Run(tc.want, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, tc.p.String())
		})
	}
}
