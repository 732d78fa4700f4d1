package explore_test

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/explore"
	"github.com/fencecheck/fencecheck/fencetest"
	"github.com/fencecheck/fencecheck/harness"
	"github.com/fencecheck/fencecheck/model"
	"github.com/fencecheck/fencecheck/sched"
	"github.com/fencecheck/fencecheck/targets"
	"github.com/fencecheck/fencecheck/targets/httptarget/receiver"
	"github.com/fencecheck/fencecheck/targets/memory"
	"github.com/fencecheck/fencecheck/workload"
)

// The markers around the generated table in docs/exploration.md.
const (
	ttdBegin = "<!-- ttd:begin -->"
	ttdEnd   = "<!-- ttd:end -->"
)

// ttdReceiver is one row of the time-to-detection table.
type ttdReceiver struct {
	name string
	// newTarget gives each run a receiver of its own.
	newTarget func() (targets.Target, error)
	// bubble runs each run in a testing/synctest bubble on a virtual
	// clock (the reference HTTP receiver in process) instead of the
	// deterministic simulation; PCT does not order such runs.
	bubble bool
	// correct receivers must not fail a seed; they are swept over many
	// seeds once per strategy instead of measured in trials.
	correct bool
	// limit is the most seeds a trial runs (a correct receiver's: the
	// seeds of its one sweep per strategy, swarmLimit in a swarm, whose
	// runs cost more: up to 16 workers and leases of 10 ms).
	limit, swarmLimit int
	set               func(*harness.Config)
}

// ttdStrategy is one column: how each seed's run is chosen.
type ttdStrategy struct {
	name  string
	swarm bool
	order sched.Order
	// noBursts turns the workers' contention bursts off (--burst 0): the
	// default run as it was before them, beside it.
	noBursts bool
}

var ttdStrategies = []ttdStrategy{
	{name: "random", order: sched.Random()},
	{name: "random, --burst 0 (before bursts)", order: sched.Random(), noBursts: true},
	{name: "swarm", swarm: true, order: sched.Random()},
	{name: "pct:2", order: sched.PCT(2)},
}

func memoryReceiver(name string) func() (targets.Target, error) {
	return func() (targets.Target, error) { return memory.Open(name) }
}

func referenceReceiver(bug receiver.Bug) func() (targets.Target, error) {
	return func() (targets.Target, error) {
		o := receiver.DefaultOptions()
		o.Bug = bug
		h, err := receiver.NewHandler(receiver.NewMemory(), o)
		if err != nil {
			return nil, err
		}
		return fencetest.HandlerTarget(h, fencetest.DefaultOptions())
	}
}

// ttdReceivers are the broken receivers fencecheck ships and the correct
// ones. The reference receiver's runs are 2 s of virtual time (the
// memory receivers' are the default 5 s): in a bubble a run costs more
// wall time than in the simulation.
func ttdReceivers(correctSeeds, correctSwarm, referenceSeeds, referenceSwarm, limit, referenceLimit int) []ttdReceiver {
	short := func(c *harness.Config) { c.Workload.Duration = 2 * time.Second }
	return []ttdReceiver{
		{name: "memory://unfenced", newTarget: memoryReceiver("unfenced"), limit: limit},
		{name: "memory://check-then-set", newTarget: memoryReceiver("check-then-set"), limit: limit},
		{name: "memory://accept-equal (strict)", newTarget: memoryReceiver("accept-equal"), limit: limit,
			set: func(c *harness.Config) { c.Gates.Policy = model.Strict }},
		{name: "memory://check-then-set-rare", newTarget: memoryReceiver("check-then-set-rare"), limit: limit},
		{name: "memory://lost-write-rare", newTarget: memoryReceiver("lost-write-rare"), limit: limit},
		{name: "memory://uint32-tokens", newTarget: memoryReceiver("uint32-tokens"), limit: limit},
		{name: "reference --bug check-then-set", newTarget: referenceReceiver(receiver.CheckThenSet), bubble: true, limit: referenceLimit, set: short},
		{name: "reference --bug lose-acknowledged", newTarget: referenceReceiver(receiver.LoseAcknowledged), bubble: true, limit: referenceLimit, set: short},
		{name: "reference --bug string-tokens", newTarget: referenceReceiver(receiver.StringTokens), bubble: true, limit: referenceLimit, set: short},
		{name: "reference --bug unfenced", newTarget: referenceReceiver(receiver.Unfenced), bubble: true, limit: referenceLimit, set: short},
		{name: "reference --bug accept-equal (strict)", newTarget: referenceReceiver(receiver.AcceptEqual), bubble: true, limit: referenceLimit, set: short},
		{name: "memory://fenced", newTarget: memoryReceiver("fenced"), correct: true, limit: correctSeeds, swarmLimit: correctSwarm},
		{name: "reference (no bug)", newTarget: referenceReceiver(receiver.NoBug), bubble: true, correct: true, limit: referenceSeeds, swarmLimit: referenceSwarm, set: short},
	}
}

// ttdCell is what the trials of one receiver and strategy measured.
type ttdCell struct {
	applies bool
	// seeds[i] is trial i's seeds to its first failure, 0 when it found
	// none within the limit; wall[i] its wall time.
	seeds []int
	wall  []time.Duration
	// sweep is a correct receiver's one sweep.
	sweep explore.Result
}

func envInt(t *testing.T, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a positive number", name, s)
	}
	return n
}

// TestTimeToDetectionTable is `make explore-table`: for each broken
// receiver and each strategy (random, a swarm, PCT of depth 2) it
// runs FENCECHECK_TTD_TRIALS independent trials, trial i a sweep of the
// seeds i*100000+1 on that stops at the first failure or after the
// limit, and tabulates the median and 90th percentile of the seeds and
// the wall time each took; each correct receiver it sweeps over
// FENCECHECK_TTD_CORRECT seeds per strategy (the _SWARM, _REFERENCE and
// _REFERENCE_SWARM variables set the others; the reference receiver's
// swarm gets fewer, since its runs cost the most), and fails if any
// seed violates. The limits
// (FENCECHECK_TTD_LIMIT, FENCECHECK_TTD_LIMIT_REFERENCE) and the
// trials (FENCECHECK_TTD_TRIALS) keep `make explore-table` within about
// ten minutes on two cores. It
// writes the table between the ttd markers of the file
// FENCECHECK_TTD_DOC names, and runs only when that is set: it takes
// minutes. Cells run one after another, each sweep on every processor,
// so that the wall times are a sweep's as the command makes it.
func TestTimeToDetectionTable(t *testing.T) {
	doc := os.Getenv("FENCECHECK_TTD_DOC")
	if doc == "" {
		t.Skip("set FENCECHECK_TTD_DOC=docs/exploration.md (make explore-table) to measure the time to detection")
	}
	trials := envInt(t, "FENCECHECK_TTD_TRIALS", 20)
	limit := envInt(t, "FENCECHECK_TTD_LIMIT", 100)
	refLimit := envInt(t, "FENCECHECK_TTD_LIMIT_REFERENCE", 50)
	correct := envInt(t, "FENCECHECK_TTD_CORRECT", 10000)
	correctSwarm := envInt(t, "FENCECHECK_TTD_CORRECT_SWARM", 10000)
	refCorrect := envInt(t, "FENCECHECK_TTD_CORRECT_REFERENCE", 10000)
	refSwarm := envInt(t, "FENCECHECK_TTD_CORRECT_REFERENCE_SWARM", 5000)
	receivers := ttdReceivers(correct, correctSwarm, refCorrect, refSwarm, limit, refLimit)
	store := schema.TempDir(t)
	start := time.Now()
	cells := make([][]ttdCell, len(receivers))
	for i, r := range receivers {
		cells[i] = make([]ttdCell, len(ttdStrategies))
		for j, s := range ttdStrategies {
			if r.bubble && s.order != sched.Random() {
				continue // a bubble's wake-ups have their own order
			}
			if r.correct && s.noBursts {
				continue // the correct receivers are swept with bursts on
			}
			c := &cells[i][j]
			c.applies = true
			if r.correct {
				n := r.limit
				if s.swarm {
					n = r.swarmLimit
				}
				res := ttdSweep(t, r, s, store, explore.Seeds{First: 1, Last: uint64(n)})
				c.sweep = res
				if res.Violated > 0 || res.Runs != n {
					t.Errorf("%s, %s: %d of %d seeds violated, %d ran: %s", r.name, s.name, res.Violated, n, res.Runs, res.Reason)
				}
				t.Logf("%s %s: %d runs in %s, %s", r.name, s.name, res.Runs, res.Elapsed.Round(time.Millisecond), res.Verdict)
				continue
			}
			for k := range trials {
				first := uint64(k)*100000 + 1
				res := ttdSweep(t, r, s, store, explore.Seeds{First: first, Last: first + uint64(r.limit) - 1})
				n := 0
				if res.Violated > 0 {
					n = int(res.Failures[0].Seed - first + 1)
				}
				c.seeds, c.wall = append(c.seeds, n), append(c.wall, res.Elapsed)
			}
			t.Logf("%s %s: seeds %v", r.name, s.name, c.seeds)
		}
	}
	table := ttdTable(receivers, cells, trials, time.Since(start))
	t.Log("\n" + table)
	if t.Failed() {
		return
	}
	if err := replaceBetweenMarkers(doc, table); err != nil {
		t.Fatal(err)
	}
}

// ttdSweep sweeps seeds against r with strategy s, stopping at the first
// failure, on every processor.
func ttdSweep(t *testing.T, r ttdReceiver, s ttdStrategy, store string, seeds explore.Seeds, keepGoing ...bool) explore.Result {
	t.Helper()
	cfg := harness.DefaultConfig()
	cfg.Target.Name, cfg.Store.Dir, cfg.Runtime.TaskOrder = r.name, store, s.order
	cfg.Runtime.Deterministic = !r.bubble
	if s.noBursts {
		cfg.Workload.Burst = workload.Burst{}
	}
	if r.set != nil {
		r.set(&cfg)
	}
	opts := explore.DefaultOptions()
	opts.Seeds, opts.Swarm, opts.NewTarget, opts.Parallel = seeds, s.swarm, r.newTarget, runtime.GOMAXPROCS(0)
	opts.Store = "" // no sweep log: only the violated runs are stored
	opts.KeepGoing = len(keepGoing) > 0 && keepGoing[0]
	if r.bubble {
		cfg.Runtime.VirtualClock, cfg.Runtime.Started = true, time.Now()
		opts.Runner = func(_ context.Context, c harness.Config) (res harness.Result, err error) {
			synctest.Test(t, func(inner *testing.T) { res, err = harness.Run(inner.Context(), c) })
			return res, err
		}
	}
	res, err := explore.Sweep(context.Background(), cfg, opts)
	if err != nil {
		t.Fatalf("%s, %s, seeds %d-%d: %v", r.name, s.name, seeds.First, seeds.Last, err)
	}
	return res
}

// percentile is the nearest-rank p-th percentile of the trials' seeds
// and, apart, of their wall times: the smallest value at least p of them
// reach. A trial that found nothing (seeds 0) counts as more than the
// limit in both, and is returned as 0 with its wall time.
func percentile(seeds []int, wall []time.Duration, p float64) (int, time.Duration, bool) {
	k := max(int(math.Ceil(p*float64(len(seeds))))-1, 0)
	s := slices.Clone(seeds)
	for i, n := range s {
		if n == 0 {
			s[i] = math.MaxInt
		}
	}
	slices.Sort(s)
	type trial struct {
		found bool
		wall  time.Duration
	}
	w := make([]trial, len(wall))
	for i := range wall {
		w[i] = trial{seeds[i] > 0, wall[i]}
	}
	slices.SortFunc(w, func(a, b trial) int {
		if a.found != b.found {
			if a.found {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.wall, b.wall)
	})
	n := s[k]
	if n == math.MaxInt {
		n = 0
	}
	return n, w[k].wall, w[k].found
}

func roundWall(d time.Duration) string {
	switch {
	case d >= 10*time.Second:
		return d.Round(time.Second).String()
	case d >= time.Second:
		return d.Round(100 * time.Millisecond).String()
	default:
		return d.Round(time.Millisecond).String()
	}
}

func ttdCellText(r ttdReceiver, c ttdCell, trials int) string {
	if !c.applies {
		return "n/a"
	}
	if r.correct {
		return fmt.Sprintf("%d of %d seeds failed (%d held, %d inconclusive; %s)",
			c.sweep.Violated, c.sweep.Runs, c.sweep.Held, c.sweep.Inconclusive, roundWall(c.sweep.Elapsed))
	}
	found := 0
	for _, n := range c.seeds {
		if n > 0 {
			found++
		}
	}
	if found == 0 {
		var longest time.Duration
		for _, w := range c.wall {
			longest = max(longest, w)
		}
		return fmt.Sprintf("never: > %d seeds in %d of %d (up to %s each)", r.limit, trials-found, trials, roundWall(longest))
	}
	seeds := func(n int) string {
		if n == 0 {
			return fmt.Sprintf("> %d", r.limit)
		}
		return strconv.Itoa(n)
	}
	wall := func(d time.Duration, found bool) string {
		if !found {
			return "> " + roundWall(d)
		}
		return roundWall(d)
	}
	ms, mw, mf := percentile(c.seeds, c.wall, 0.5)
	ps, pw, pf := percentile(c.seeds, c.wall, 0.9)
	return fmt.Sprintf("%s / %s seeds, %s / %s (found %d/%d; one run %d/%d)", seeds(ms), seeds(ps), wall(mw, mf), wall(pw, pf), found, trials, oneRun(c.seeds), trials)
}

// oneRun counts the trials whose first seed failed: how many of the
// trials' first runs, each one default run of another seed, found the
// defect.
func oneRun(seeds []int) int {
	n := 0
	for _, s := range seeds {
		if s == 1 {
			n++
		}
	}
	return n
}

// ttdTable renders the measurements in Markdown, with the command and
// the machine in a line above.
func ttdTable(receivers []ttdReceiver, cells [][]ttdCell, trials int, took time.Duration) string {
	var b strings.Builder
	host, _ := os.Hostname()
	fmt.Fprintf(&b, "`make explore-table`, %s, on %s (%s/%s, %d CPUs, %s), took %s. ",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), cmp.Or(host, "an unnamed host"), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version(), took.Round(time.Second))
	fmt.Fprintf(&b, "Each broken cell: %d trials, trial i sweeping the seeds from i·100000+1 and stopping at the first failure; "+
		"median / 90th percentile of the seeds until it, the first one included, and of the sweep's wall time, "+
		"both sweeping %d seeds at once; \"> N\": not found in N seeds; \"one run k/%d\": the trials whose first seed failed, "+
		"so one run of a seed found the defect in k of %d. The column --burst 0 is the default run without contention bursts, "+
		"as it was before them.\n\n", trials, runtime.GOMAXPROCS(0), trials, trials)
	b.WriteString("| receiver |")
	for _, s := range ttdStrategies {
		fmt.Fprintf(&b, " %s |", s.name)
	}
	b.WriteString("\n|---|")
	for range ttdStrategies {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for i, r := range receivers {
		fmt.Fprintf(&b, "| %s |", r.name)
		for j := range ttdStrategies {
			fmt.Fprintf(&b, " %s |", ttdCellText(r, cells[i][j], trials))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// replaceBetweenMarkers puts text between the ttd markers of the file at
// path, in place of what was there.
func replaceBetweenMarkers(path, text string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("the table's document: %w", err)
	}
	begin, end := bytes.Index(data, []byte(ttdBegin)), bytes.Index(data, []byte(ttdEnd))
	if begin < 0 || end < begin {
		return fmt.Errorf("%s: no %s … %s section to replace", path, ttdBegin, ttdEnd)
	}
	out := slices.Concat(data[:begin+len(ttdBegin)], []byte("\n"), []byte(text), data[end:])
	return os.WriteFile(path, out, 0o644)
}
