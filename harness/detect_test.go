package harness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/lease"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/sched"
	"github.com/fencecheck/fencecheck/targets/memory"
)

// defaultRunFor makes the configuration of the default run against
// memory://name (pause and delay faults, a gate of one stale write) for
// SeedsToDetection: a fresh target and fresh faults for each seed.
func defaultRunFor(t *testing.T, name string, set func(*Config)) func(uint64) (Config, error) {
	t.Helper()
	store := schema.TempDir(t)
	return func(uint64) (Config, error) {
		tgt, err := memory.Open(name)
		if err != nil {
			return Config{}, err
		}
		faults, err := nemesis.Parse("pause,delay")
		if err != nil {
			return Config{}, err
		}
		cfg := testConfig(t, tgt, "memory://"+name, func(c *Config) {
			c.Nemesis.Faults, c.Gates.MinStale, c.Store.Dir = faults, 1, store
			if set != nil {
				set(c)
			}
		})
		return cfg, nil
	}
}

func TestSeedsToDetection(t *testing.T) {
	t.Parallel()
	t.Run("found", func(t *testing.T) {
		t.Parallel()
		d, err := SeedsToDetection(context.Background(), defaultRunFor(t, "check-then-set", nil), 40, 5)
		require.NoError(t, err)
		assert.True(t, d.Found)
		assert.Equal(t, 1, d.Runs, "check-then-set is found by every seed (TestDetection)")
		assert.Equal(t, uint64(40), d.Seed)
		assert.Equal(t, judge.Violated, d.Result.Verdict)
		assert.DirExists(t, d.Result.Dir, "the violated run stays")
		assert.NoFileExists(t, filepath.Join(d.Result.Dir, "report.html"))
	})
	t.Run("not found", func(t *testing.T) {
		t.Parallel()
		d, err := SeedsToDetection(context.Background(), defaultRunFor(t, "fenced", nil), 1, 3)
		require.NoError(t, err)
		assert.False(t, d.Found)
		assert.Equal(t, 3, d.Runs)
		assert.Equal(t, uint64(3), d.Seed)
		assert.Equal(t, judge.Held, d.Result.Verdict)
		runs, err := os.ReadDir(filepath.Dir(d.Result.Dir))
		require.NoError(t, err)
		assert.Len(t, runs, 1, "only the last run stays in the store")
	})
	t.Run("interrupted", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := SeedsToDetection(ctx, defaultRunFor(t, "fenced", nil), 1, 3)
		require.ErrorIs(t, err, context.Canceled)
	})
}

// rareDefects are the receivers a single default run may well miss, each
// with the configuration that can find it at all.
var rareDefects = []struct {
	name string
	set  func(*Config)
}{
	{"check-then-set-rare", nil},
	{"lost-write-rare", nil},
	{"uint32-tokens", func(c *Config) { c.Leases.Tokens = lease.Sparse() }},
}

// TestTimeToDetection measures, for each receiver with a rare defect and
// each task order, the seeds until each detection over
// FENCECHECK_DETECT_SEEDS seeds (say 300): the gaps SeedsToDetection
// returns one after another, and their median. It takes minutes, so it
// runs only when asked; it asserts that every order finds every defect
// in that many seeds, and logs the table.
func TestTimeToDetection(t *testing.T) {
	seeds, _ := strconv.Atoi(os.Getenv("FENCECHECK_DETECT_SEEDS"))
	if seeds <= 0 {
		t.Skip("set FENCECHECK_DETECT_SEEDS=300 to measure the seeds to detection of the rare defects")
	}
	var mu sync.Mutex
	var table []string
	for _, defect := range rareDefects {
		for _, order := range []sched.Order{sched.Random(), sched.PCT(2), sched.PCT(3)} {
			t.Run(defect.name+"/"+order.String(), func(t *testing.T) {
				t.Parallel()
				configFor := defaultRunFor(t, defect.name, func(c *Config) {
					c.Runtime.TaskOrder = order
					if defect.set != nil {
						defect.set(c)
					}
				})
				var gaps []int
				for next := uint64(1); next <= uint64(seeds); {
					d, err := SeedsToDetection(context.Background(), configFor, next, seeds-int(next)+1)
					require.NoError(t, err)
					if !d.Found {
						break
					}
					gaps = append(gaps, d.Runs)
					next = d.Seed + 1
				}
				require.NotEmpty(t, gaps, "%s found nothing in %d seeds", order, seeds)
				sorted := slices.Sorted(slices.Values(gaps))
				line := fmt.Sprintf("%-20s %-7s %3d detections in %d seeds, median seeds to detection %d, gaps %v",
					defect.name, order, len(gaps), seeds, sorted[len(sorted)/2], gaps)
				mu.Lock()
				table = append(table, line)
				mu.Unlock()
			})
		}
	}
	t.Cleanup(func() {
		slices.Sort(table)
		t.Log("\n" + strings.Join(table, "\n"))
	})
}
