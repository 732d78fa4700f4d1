package sched

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// orderTrace runs five tasks that each note three steps, yielding between
// them, under order, and returns what they noted, as "task.step", with
// the PCT rank each task had when it noted it.
func orderTrace(t *testing.T, seed uint64, order Order) (log []string, ranks []uint64) {
	t.Helper()
	sim := NewSimOrdered(seed, order, 20)
	var mu sync.Mutex
	note := func(s string) {
		sim.mu.Lock()
		rank := sim.current.prio.rank
		sim.mu.Unlock()
		mu.Lock()
		defer mu.Unlock()
		log = append(log, s)
		ranks = append(ranks, rank)
	}
	require.NoError(t, sim.Run(func() {
		for i := range 5 {
			sim.Go(func() {
				for j := range 3 {
					note(fmt.Sprintf("t%d.%d", i, j))
					sim.Yield()
				}
			})
		}
	}))
	return log, ranks
}

// TestPCT1IsAPurePriorityOrder: without change points, the ready task of
// highest priority always runs, so a task that only yields runs to its
// end once chosen, and the tasks run in the order of their priorities;
// which order that is follows the seed.
func TestPCT1IsAPurePriorityOrder(t *testing.T) {
	t.Parallel()
	orders := make(map[string]bool)
	for seed := uint64(1); seed <= 20; seed++ {
		log, ranks := orderTrace(t, seed, PCT(1))
		require.Len(t, log, 15)
		var blocks []string
		for k := 0; k < len(log); k += 3 {
			task := strings.Split(log[k], ".")[0]
			assert.Equal(t, []string{task + ".0", task + ".1", task + ".2"}, log[k:k+3], "seed %d: a task was preempted: %v", seed, log)
			if k > 0 {
				assert.Greater(t, ranks[k-1], ranks[k], "seed %d: a task of lower priority ran first", seed)
			}
			blocks = append(blocks, task)
		}
		orders[strings.Join(blocks, " ")] = true
	}
	assert.Greater(t, len(orders), 5, "the priorities should follow the seed")

	// Random, by contrast, interleaves the same tasks.
	interleaved := false
	for seed := uint64(1); seed <= 20 && !interleaved; seed++ {
		log, _ := orderTrace(t, seed, Random())
		interleaved = strings.Split(log[0], ".")[0] != strings.Split(log[1], ".")[0]
	}
	assert.True(t, interleaved)
}

func TestPCTIsDeterministicPerSeed(t *testing.T) {
	t.Parallel()
	for _, order := range []Order{PCT(1), PCT(2), PCT(3)} {
		t.Run(order.String(), func(t *testing.T) {
			t.Parallel()
			a, _ := orderTrace(t, 42, order)
			b, _ := orderTrace(t, 42, order)
			assert.Equal(t, a, b)
		})
	}
}

// deepBugSteps is how many steps deepBug takes: main's, the checker's
// two, the other task's twenty.
const deepBugSteps = 23

// deepBug runs a program with a bug of depth 2 and says whether it
// showed: a checker sees a flag down, yields, and acts on what it saw;
// another task raises the flag after twenty steps of its own. The bug
// shows when all twenty run between the checker's two steps: the checker
// must run before the other task (one ordering constraint) and be
// preempted right after its first step until the other task is done (a
// second). A random order must pass over the checker twenty times in a
// row; PCT with depth 2 needs only that the checker has the higher
// priority and that the change point is its first step.
func deepBug(t *testing.T, seed uint64, order Order) bool {
	t.Helper()
	sim := NewSimOrdered(seed, order, deepBugSteps)
	var raised, stale bool
	require.NoError(t, sim.Run(func() {
		sim.Go(func() {
			seen := raised
			sim.Yield()
			stale = !seen && raised
		})
		sim.Go(func() {
			for range 19 {
				sim.Yield()
			}
			raised = true
		})
	}))
	require.Equal(t, deepBugSteps, sim.Steps())
	return stale
}

// TestPCT2FindsADepth2Bug counts the seeds until each order finds the
// bug of deepBug. PCT promises probability at least 1/(n·k^(d−1)) per
// run, here n = 3 tasks and k = 23 steps: one seed in 69 on average at
// worst, so over 690 seeds ten are expected.
func TestPCT2FindsADepth2Bug(t *testing.T) {
	t.Parallel()
	const n, k, seeds = 3, deepBugSteps, 690
	found := make(map[string]int)
	first := make(map[string]uint64)
	for _, order := range []Order{Random(), PCT(1), PCT(2), PCT(3)} {
		for seed := uint64(1); seed <= seeds; seed++ {
			if deepBug(t, seed, order) {
				found[order.String()]++
				if first[order.String()] == 0 {
					first[order.String()] = seed
				}
			}
		}
	}
	t.Logf("found in %d seeds: %v; first at seed %v", seeds, found, first)
	assert.Positive(t, first["pct:2"])
	assert.LessOrEqual(t, first["pct:2"], uint64(n*k), "pct:2 took more seeds than its guarantee's mean")
	assert.GreaterOrEqual(t, found["pct:2"], seeds/(n*k)/2, "pct:2 found it far less often than it guarantees")
	assert.Positive(t, found["pct:3"], "a deeper search finds shallower bugs too")
	assert.Zero(t, found["pct:1"], "without a change point the checker is never preempted")
	assert.Zero(t, found["random"], "a random order should pass over the checker twenty times in a row almost never")
}

func TestParseOrder(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want Order
		err  string
	}{
		{"random", Random(), ""},
		{"pct:1", PCT(1), ""},
		{"pct:3", PCT(3), ""},
		{"pct:64", PCT(64), ""},
		{"pct:0", Random(), "from 1 to 64"},
		{"pct:65", Random(), "from 1 to 64"},
		{"pct:03", Random(), "from 1 to 64"},
		{"pct:", Random(), "from 1 to 64"},
		{"pct:-1", Random(), "from 1 to 64"},
		{"pct", Random(), "want random or pct:D"},
		{"PCT:2", Random(), "want random or pct:D"},
		{"", Random(), "want random or pct:D"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseOrder(tc.in)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				assert.Contains(t, err.Error(), fmt.Sprintf("%q", tc.in))
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.in, got.String())
		})
	}
}

func FuzzParseOrder(f *testing.F) {
	for _, s := range []string{"random", "pct:1", "pct:64", "pct:0", "pct:+2", "pct:2 ", "pct:1e1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		o, err := ParseOrder(s)
		if err != nil {
			return
		}
		assert.Equal(t, s, o.String(), "an order parses only from its own spelling")
		again, err := ParseOrder(o.String())
		require.NoError(t, err)
		assert.Equal(t, o, again)
		if !o.IsRandom() {
			assert.True(t, o.Depth() >= 1 && o.Depth() <= MaxDepth)
		}
	})
}

// TestRandomOrderIsAsBefore: the default order draws exactly as the
// simulation did before it had orders, so a seed a user kept gives the
// interleaving it always gave; these are trace's lines as that
// simulation printed them.
func TestRandomOrderIsAsBefore(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "t3.0@0 t3.1@0 t1.0@0 t0.0@0 t2.0@0 t4.0@0 t2.1@0 t0.1@0 t1.1@0 t4.1@0 "+
		"t0.2@1000000 t1.2@2000000 t2.2@3000000 t3.2@4000000 t4.2@5000000", trace(t, 42))
	assert.Equal(t, "t4.0@0 t0.0@0 t2.0@0 t4.1@0 t2.1@0 t3.0@0 t1.0@0 t3.1@0 t0.1@0 t1.1@0 "+
		"t0.2@1000000 t1.2@2000000 t2.2@3000000 t3.2@4000000 t4.2@5000000", trace(t, 7))
}
