package check_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fencecheck/fencecheck/check"
	"github.com/fencecheck/fencecheck/explain"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/internal/testsupport/histgen"
)

// checkAndExplain is check.Check with its violations worded, as
// fencecheck check runs them.
func checkAndExplain(ops []histories.Operation, opts check.Options) (explain.Result, error) {
	res, err := check.Check(context.Background(), histories.FromOperations(ops), opts)
	if err != nil {
		return explain.Result{}, err
	}
	return explain.Explain(ops, res, opts), nil
}

// BenchmarkCheckers runs the fast checker and porcupine side by side on the
// same generated histories:
//
//	go test ./check -run '^$' -bench BenchmarkCheckers -benchtime 1x -timeout 3h
//
// Each cell is named resources/clients/ops/unknown/validity and has two
// sub-benchmarks, fast and porcupine. Each measurement runs in a child
// process (this test binary, re-executed for TestBenchChild), because
// porcupine can exhaust the machine's memory before its timeout: the child
// generates the history, then runs one checker, and the parent kills it
// when its resident memory exceeds -bench.max-rss. A check that takes less
// than 200 ms is repeated for a second and the mean of the repetitions
// (warm, as in any Go benchmark) is reported; longer ones run once. Every
// line reports the checker's own time (ns/op, generation excluded), the
// child's peak resident memory while checking (peak-RSS-MB, the history
// included), the peak of live heap the checker added (heap-MB), whether it
// found a violation or gave up (timeout, or memory cap), and on porcupine
// lines that finished, how many times slower than fast it was (x-fast).
// Porcupine is not run where it cannot finish (see porcupineSkip). Narrow
// the matrix with -bench, e.g.
// -bench 'BenchmarkCheckers/resources=1/clients=50/ops=1000000/'.
var (
	porcupineTimeout = flag.Duration("bench.porcupine-timeout", 60*time.Second, "BenchmarkCheckers: porcupine's timeout")
	maxRSS           = flag.Int64("bench.max-rss", 8<<30, "BenchmarkCheckers: kill a measurement whose resident memory exceeds this many bytes")
	benchChild       = flag.String("bench.child", "", "internal: the measurement TestBenchChild makes")
)

func BenchmarkCheckers(b *testing.B) {
	for _, resources := range []int{1, 50} {
		for _, clients := range []int{5, 50} {
			for _, n := range []int{10_000, 100_000, 1_000_000} {
				for _, unknown := range []float64{0, 0.01, 0.10} {
					for _, invalid := range []bool{false, true} {
						cell := benchCell{Resources: resources, Clients: clients, Ops: n, Unknown: unknown, Invalid: invalid}
						b.Run(cell.String(), cell.run)
					}
				}
			}
		}
	}
	// What a one-hour soak test at 3,000 operations per second records:
	// 10,000,000 operations, 10 % unknown writes, valid and with one stale
	// read planted at 90 % of the history. They need about 4 GB for
	// the fast checker's child.
	for _, resources := range []int{1, 50} {
		for _, late := range []bool{false, true} {
			cell := benchCell{Resources: resources, Clients: 50, Ops: 10_000_000, Unknown: 0.10, Invalid: late, Late: late}
			b.Run(cell.String(), cell.run)
		}
	}
}

type benchCell struct {
	Resources, Clients, Ops int
	Unknown                 float64
	Invalid                 bool
	// Late plants the invalid history's stale read at 90 % of the
	// history rather than in its middle.
	Late bool
}

func (c benchCell) String() string {
	validity := "valid"
	switch {
	case c.Late:
		validity = "invalid-late"
	case c.Invalid:
		validity = "invalid"
	}
	return fmt.Sprintf("resources=%d/clients=%d/ops=%d/unknown=%g%%/%s", c.Resources, c.Clients, c.Ops, 100*c.Unknown, validity)
}

// porcupineSkip says why porcupine is not run on a cell, or "". On the
// 10,000,000-operation cells with 50 resources it is run, and stopped at
// the memory cap (-bench.max-rss) or its timeout, whichever comes first:
// at 1,000,000 operations it already takes 2 s and 0.9 GB.
func (c benchCell) porcupineSkip() string {
	if c.Ops >= 1_000_000 && c.Resources == 1 {
		return fmt.Sprintf("porcupine is not run on %d operations on one resource: at 100,000 it already takes seconds and gigabytes, or exceeds the memory cap", c.Ops)
	}
	return ""
}

func (c benchCell) history() []histories.Operation {
	r := rand.New(rand.NewPCG(uint64(c.Ops), uint64(c.Resources*100+c.Clients)))
	ops := histgen.Generate(r, histgen.Bench(c.Ops, c.Resources, c.Clients, c.Unknown, false))
	from := len(ops) / 2
	if c.Late {
		from = len(ops) * 9 / 10
	}
	if c.Invalid && !histgen.BreakStaleReadFrom(ops, from) {
		panic("no read to make stale")
	}
	return ops
}

// measurement is what a child reports.
type measurement struct {
	Cell     benchCell
	Checker  string
	Verdict  check.Verdict
	Elapsed  time.Duration
	First    time.Duration // the first check, cold
	PeakRSS  int64         // bytes, while checking
	PeakHeap uint64        // bytes of live heap added while checking
	Killed   string        // why the parent stopped the child, if it did
}

func (c benchCell) run(b *testing.B) {
	var fast measurement
	b.Run("fast", func(b *testing.B) {
		fast = measure(b, c, "fast")
		fast.report(b)
	})
	b.Run("porcupine", func(b *testing.B) {
		if why := c.porcupineSkip(); why != "" {
			b.Skip(why)
		}
		m := measure(b, c, "porcupine")
		m.report(b)
		if fast.Elapsed > 0 && m.Killed == "" && m.Verdict != check.Inconclusive {
			b.ReportMetric(float64(m.Elapsed)/float64(fast.Elapsed), "x-fast")
		}
		if broken := fastRule(fast, m); broken != "" {
			b.Errorf("%s: %s", c, broken)
		}
	})
}

// fastRule is what the matrix holds the fast checker to beside
// porcupine on one cell, and says how it is broken, or "": never slower
// than porcupine; at least 100 times faster on one resource where
// porcupine needs more than a second; a verdict wherever porcupine gives
// up (its timeout, or the memory cap).
func fastRule(fast, porcupine measurement) string {
	gaveUp := porcupine.Killed != "" || porcupine.Verdict == check.Inconclusive
	switch {
	case fast.Elapsed == 0:
		return "" // the fast measurement failed, and said so
	case gaveUp && fast.Verdict == check.Inconclusive:
		return "porcupine gave up and the fast checker decided nothing either"
	case gaveUp:
		return ""
	case fast.Elapsed > porcupine.Elapsed:
		return fmt.Sprintf("the fast checker (%s) is slower than porcupine (%s)", fast.Elapsed, porcupine.Elapsed)
	case fast.Cell.Resources == 1 && porcupine.Elapsed > time.Second && porcupine.Elapsed < 100*fast.Elapsed:
		return fmt.Sprintf("on one resource, where porcupine takes %s, the fast checker (%s) is only %.0f× faster, not 100×",
			porcupine.Elapsed, fast.Elapsed, float64(porcupine.Elapsed)/float64(fast.Elapsed))
	}
	return ""
}

func (m measurement) report(b *testing.B) {
	b.ReportMetric(float64(m.Elapsed.Nanoseconds()), "ns/op")
	if m.First > 0 {
		b.ReportMetric(float64(m.First.Nanoseconds()), "first-ns")
	}
	b.ReportMetric(float64(m.PeakRSS)/(1<<20), "peak-RSS-MB")
	b.ReportMetric(float64(m.PeakHeap)/(1<<20), "heap-MB")
	switch {
	case m.Killed != "":
		b.ReportMetric(1, "gave-up")
		b.Log(m.Killed)
	case m.Verdict == check.Inconclusive:
		b.ReportMetric(1, "gave-up")
		b.Logf("%s gave up after %s", m.Checker, m.Elapsed)
	case m.Verdict == check.Violated:
		b.ReportMetric(1, "violated")
		if !m.Cell.Invalid {
			b.Errorf("%s says violated on a valid history", m.Checker)
		}
	case m.Cell.Invalid:
		b.Errorf("%s says %s on an invalid history", m.Checker, m.Verdict)
	}
}

// measure runs one checker on the cell's history in a child process and
// stops it if it takes more than -bench.max-rss.
func measure(b *testing.B, c benchCell, checker string) measurement {
	spec, err := json.Marshal(measurement{Cell: c, Checker: checker})
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestBenchChild$", "-test.v", "-bench.child="+string(spec),
		"-bench.porcupine-timeout="+porcupineTimeout.String())
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, os.Stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	killed := watchRSS(cmd.Process.Pid, *maxRSS, *porcupineTimeout+5*time.Minute)
	waitErr := cmd.Wait()
	if why := killed(); why != "" {
		return measurement{Cell: c, Checker: checker, Elapsed: time.Since(start), PeakRSS: *maxRSS, Killed: why}
	}
	for sc := bufio.NewScanner(&out); sc.Scan(); {
		if line, ok := strings.CutPrefix(sc.Text(), "BENCHRESULT "); ok {
			var m measurement
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				b.Fatal(err)
			}
			return m
		}
	}
	b.Fatalf("child for %s/%s: %v\n%s", c, checker, waitErr, out.String())
	return measurement{}
}

// watchRSS kills process pid when its resident memory exceeds limit or it
// runs longer than deadline, and returns a function that says which
// happened, once the process has exited.
func watchRSS(pid int, limit int64, deadline time.Duration) func() string {
	var why string
	done := make(chan struct{})
	go func() {
		defer close(done)
		start := time.Now()
		for {
			rss, ok := procStatus(pid, "VmRSS")
			if !ok {
				return // exited
			}
			switch {
			case rss > limit:
				why = fmt.Sprintf("killed after %s: resident memory above the cap of %d MB (-bench.max-rss)", time.Since(start).Round(time.Second), limit>>20)
			case time.Since(start) > deadline:
				why = fmt.Sprintf("killed after %s", deadline)
			}
			if why != "" {
				syscallKill(pid)
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	return func() string {
		<-done
		return why
	}
}

func syscallKill(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		p.Kill()
	}
}

// procStatus reads a memory field (in bytes) of /proc/<pid>/status.
func procStatus(pid int, field string) (int64, bool) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false // a zombie has no VmRSS
}

// TestBenchChild is one measurement of BenchmarkCheckers, in its own
// process; without -bench.child it does nothing.
func TestBenchChild(t *testing.T) {
	if *benchChild == "" {
		t.Skip("runs only as BenchmarkCheckers' child")
	}
	var m measurement
	if err := json.Unmarshal([]byte(*benchChild), &m); err != nil {
		t.Fatal(err)
	}
	ops := m.Cell.history()
	runtime.GC()
	debug.FreeOSMemory()
	// Reset the peak resident memory to the current one, the history's.
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		t.Logf("cannot reset the peak RSS (%v); it includes generating the history", err)
	}
	run := func() {
		opts := check.Options{}
		if m.Checker == "porcupine" {
			opts = check.Options{Checker: check.Porcupine, Timeout: *porcupineTimeout}
		}
		res, err := checkAndExplain(ops, opts)
		if err != nil {
			t.Fatal(err)
		}
		m.Verdict = res.Verdict
	}
	// The first check gives the verdict and the peaks. It is not the one
	// timed: it pays for faulting in every page the checker touches for
	// the first time, which is slow on this machine's VM after
	// FreeOSMemory (it is reported as first-ns), and would measure the VM
	// more than the checker. Both checkers are timed warm, the same way:
	// repeated for a second, or once more when a check takes longer. A
	// check that gave up is not repeated. Before each repetition of a
	// long check the garbage of the previous one is collected, outside
	// the time: porcupine's invalid checks peak at 6 GB, and two of them
	// would pass the memory cap that only one check is held to.
	start := time.Now()
	m.PeakHeap = heapPeak(run)
	m.Elapsed = time.Since(start)
	m.First = m.Elapsed
	m.PeakRSS, _ = procStatus(os.Getpid(), "VmHWM")
	if m.Verdict != check.Inconclusive {
		var runs int
		var spent time.Duration
		for runs = 0; runs < 1000 && (runs == 0 || spent < time.Second); runs++ {
			if m.First > 100*time.Millisecond {
				runtime.GC()
			}
			start := time.Now()
			run()
			spent += time.Since(start)
		}
		m.Elapsed = spent / time.Duration(runs)
	}
	line, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("BENCHRESULT %s\n", line)
}

// heapPeak runs fn and returns the peak of live heap above what was live
// before, sampled every millisecond (runtime/metrics reads without
// stopping the world).
func heapPeak(fn func()) uint64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 {
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	base := read()
	var peak uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				peak = max(peak, read())
			}
		}
	}()
	fn()
	close(stop)
	wg.Wait()
	peak = max(peak, read())
	if peak < base {
		return 0
	}
	return peak - base
}

// benchCheckFast runs checkAndExplain warm on c's history as a
// sub-benchmark named after c, reporting ns/operation.
func benchCheckFast(b *testing.B, c benchCell) {
	ops := c.history()
	b.Run(c.String(), func(b *testing.B) {
		for b.Loop() {
			if _, err := checkAndExplain(ops, check.Options{}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(c.Ops), "ns/operation")
	})
}

// BenchmarkCheckFast measures the fast checker, warm, on a few cells of
// BenchmarkCheckers, with the explanation of the violations it finds (the
// work fencecheck check does after reading a history), for comparing
// changes with benchstat:
//
//	go test ./check -run '^$' -bench BenchmarkCheckFast -count 10 > new.txt
//	benchstat old.txt new.txt
//
// ns/operation is the time per operation of the history.
func BenchmarkCheckFast(b *testing.B) {
	for _, c := range []benchCell{
		{Resources: 1, Clients: 5, Ops: 10_000},
		{Resources: 1, Clients: 5, Ops: 10_000, Invalid: true},
		{Resources: 1, Clients: 5, Ops: 10_000, Unknown: 0.01, Invalid: true},
		{Resources: 1, Clients: 50, Ops: 100_000, Unknown: 0.1},
		{Resources: 50, Clients: 5, Ops: 10_000},
		{Resources: 50, Clients: 50, Ops: 100_000, Unknown: 0.1},
		{Resources: 50, Clients: 50, Ops: 1_000_000, Unknown: 0.01, Invalid: true},
	} {
		benchCheckFast(b, c)
	}
}

func TestFastRule(t *testing.T) {
	one, fifty := benchCell{Resources: 1}, benchCell{Resources: 50}
	m := func(c benchCell, d time.Duration, v check.Verdict, killed string) measurement {
		return measurement{Cell: c, Elapsed: d, Verdict: v, Killed: killed}
	}
	for _, tc := range []struct {
		name            string
		fast, porcupine measurement
		broken          bool
	}{
		{"faster on 50 resources", m(fifty, 50*time.Millisecond, check.Held, ""), m(fifty, 2*time.Second, check.Held, ""), false},
		{"slower than porcupine", m(fifty, 3*time.Second, check.Held, ""), m(fifty, 2*time.Second, check.Held, ""), true},
		{"one resource, porcupine under a second", m(one, 20*time.Millisecond, check.Held, ""), m(one, 900*time.Millisecond, check.Held, ""), false},
		{"one resource, porcupine over a second, 150x", m(one, 10*time.Millisecond, check.Held, ""), m(one, 1500*time.Millisecond, check.Held, ""), false},
		{"one resource, porcupine over a second, 50x", m(one, 30*time.Millisecond, check.Held, ""), m(one, 1500*time.Millisecond, check.Held, ""), true},
		{"porcupine killed, fast decided", m(one, 30*time.Millisecond, check.Violated, ""), m(one, 20*time.Second, check.Inconclusive, "killed"), false},
		{"porcupine timed out, fast undecided", m(one, 30*time.Millisecond, check.Inconclusive, ""), m(one, time.Minute, check.Inconclusive, ""), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := fastRule(tc.fast, tc.porcupine); (got != "") != tc.broken {
				t.Errorf("fastRule = %q, want broken=%v", got, tc.broken)
			}
		})
	}
}
