package workload

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestRunProgressWords: a run's live line shows its time of the planned,
// and its operations by outcome.
func TestRunProgressWords(t *testing.T) {
	t.Parallel()
	p := Progress{Elapsed: 1234567 * time.Microsecond, Duration: 5 * time.Second, Ops: 40, Accepted: 20, Rejected: 9, Unknown: 3}
	assert.Equal(t, "1.235s/5s  ops 40  accepted 20  rejected 9  unknown 3", p.String())
}
