// Command benchpairs measures what the harness costs against real
// receivers: for each of the reference HTTP receiver, SQLite, PostgreSQL
// and MariaDB/MySQL it runs the harness benchmark and the plain client
// loop doing the same requests as interleaved pairs (harness, plain,
// harness, plain, ...) from one compiled test binary of ./harness, and
// prints the median time per operation of each side and the harness's
// throughput as a fraction of the plain loop's:
//
//	go test -c -o bin/harness.test ./harness/
//	go run ./harness/internal/benchpairs -bin bin/harness.test
//
// (make bench-pairs does both.) Interleaving, rather than -count 6,
// spreads a change in the machine's load over both sides instead of
// landing it on one. A server that does not answer is skipped with the
// benchmark's reason; the DSNs come from FENCECHECK_POSTGRES_DSN and
// FENCECHECK_MYSQL_DSN, as for the tests.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

// pair is one receiver's two benchmarks, as -test.bench patterns.
type pair struct {
	name, harness, plain string
}

var pairs = []pair{
	{"http", "^BenchmarkHarnessHTTP$", "^BenchmarkPlainLoopHTTP$"},
	{"sqlite", "^BenchmarkSQLHarness$/^sqlite$", "^BenchmarkSQLPlainLoop$/^sqlite$"},
	{"postgres", "^BenchmarkSQLHarness$/^postgres$", "^BenchmarkSQLPlainLoop$/^postgres$"},
	{"mysql", "^BenchmarkSQLHarness$/^mysql$", "^BenchmarkSQLPlainLoop$/^mysql$"},
}

func main() {
	bin := flag.String("bin", "bin/harness.test", "the test binary of ./harness (go test -c -o FILE ./harness/)")
	rounds := flag.Int("pairs", 6, "interleaved pairs per receiver")
	benchtime := flag.String("benchtime", "20000x", "-test.benchtime of every run: a fixed count, so that every run does the same requests")
	only := flag.String("receivers", "http,sqlite,postgres,mysql", "comma-separated receivers to measure")
	flag.Parse()
	var chosen []pair
	for _, p := range pairs {
		if strings.Contains(","+*only+",", ","+p.name+",") {
			chosen = append(chosen, p)
		}
	}
	if err := measure(os.Stdout, *bin, *benchtime, *rounds, chosen); err != nil {
		fmt.Fprintf(os.Stderr, "benchpairs: %v\n", err)
		os.Exit(1)
	}
}

// measure runs rounds of pairs and prints, per receiver, each run's time
// per operation, the medians and the ratio. A receiver whose benchmark
// fails is left out of the later rounds, and measure returns an error
// after printing the others.
func measure(w io.Writer, bin, benchtime string, rounds int, chosen []pair) error {
	times := make(map[string]*sides)
	skipped := make(map[string]string)
	var failed []string
	fmt.Fprintf(w, "%d interleaved pairs, -test.benchtime %s, %s\n", rounds, benchtime, bin)
	for round := 1; round <= rounds; round++ {
		fmt.Fprintf(w, "round %d load average %s\n", round, loadAverage())
		for _, p := range chosen {
			if skipped[p.name] != "" {
				continue
			}
			s := times[p.name]
			if s == nil {
				s = &sides{}
				times[p.name] = s
			}
			for _, side := range []struct {
				pattern string
				into    *[]float64
			}{{p.harness, &s.harness}, {p.plain, &s.plain}} {
				r, err := runBench(bin, side.pattern, benchtime)
				if err != nil {
					fmt.Fprintf(w, "round %d %-8s failed: %v\n", round, p.name, err)
					failed = append(failed, p.name)
					r.skip = fmt.Sprintf("failed in round %d", round)
				}
				if r.skip != "" {
					skipped[p.name] = r.skip
					break
				}
				*side.into = append(*side.into, r.nsPerOp)
			}
			if skipped[p.name] == "" {
				fmt.Fprintf(w, "round %d %-8s harness %8.1f µs/op  plain %8.1f µs/op\n", round, p.name,
					s.harness[len(s.harness)-1]/1e3, s.plain[len(s.plain)-1]/1e3)
			}
		}
	}
	fmt.Fprintf(w, "load average %s\n", loadAverage())
	for _, p := range chosen {
		if why := skipped[p.name]; why != "" {
			fmt.Fprintf(w, "%-8s skipped: %s\n", p.name, why)
			continue
		}
		fmt.Fprintln(w, times[p.name].summary(p.name))
	}
	if len(failed) > 0 {
		return fmt.Errorf("benchmarks failed: %s", strings.Join(failed, ", "))
	}
	return nil
}

// runBench runs one benchmark once and returns its ns/op, or why it was
// skipped.
func runBench(bin, pattern, benchtime string) (result, error) {
	// -test.v, or a benchmark that skips says nothing of why.
	cmd := exec.Command(bin, "-test.run", "^$", "-test.bench", pattern, "-test.benchtime", benchtime, "-test.v")
	out, err := cmd.CombinedOutput()
	r, perr := parse(string(out))
	if perr != nil {
		if err != nil {
			return result{}, fmt.Errorf("%s -test.bench %s: %w\n%s", bin, pattern, err, out)
		}
		return result{}, fmt.Errorf("%s -test.bench %s: %w\n%s", bin, pattern, perr, out)
	}
	return r, nil
}

// loadAverage is the first three fields of /proc/loadavg, or "unknown"
// where there is none: figures are quoted with the machine's load.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "unknown"
}
