package harness

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	sqltarget "github.com/fencecheck/fencecheck/targets/sqltarget"
)

// sqlBenchEngines are the databases the SQL benchmarks run against:
// SQLite always, PostgreSQL and MariaDB/MySQL when their DSNs are set.
var sqlBenchEngines = []struct{ name, env string }{
	{"sqlite", ""}, {"postgres", "FENCECHECK_POSTGRES_DSN"}, {"mysql", "FENCECHECK_MYSQL_DSN"},
}

// openSQLBench opens a fresh atomic-mode target for one benchmark run.
func openSQLBench(b *testing.B, name, env string) *sqltarget.Target {
	b.Helper()
	spec := "sqlite://" + filepath.Join(b.TempDir(), "bench.db")
	if env != "" {
		if spec = os.Getenv(env); spec == "" {
			b.Skipf("%s is not set: no %s server to benchmark", env, name)
		}
	}
	tgt, err := sqltarget.Open(context.Background(), spec, sqltarget.Options{Workers: 8})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { tgt.Close() })
	return tgt
}

// BenchmarkSQLHarness is BenchmarkHarness against each engine's atomic
// upsert: 8 workers, 64 resources, no think time or faults, every job one
// read and one write, recorded to disk. The run also creates and drops its
// scratch table (a few milliseconds per run, under 1% of a timed run).
func BenchmarkSQLHarness(b *testing.B) {
	for _, e := range sqlBenchEngines {
		b.Run(e.name, func(b *testing.B) {
			cfg := benchConfig(b, false)
			tgt := openSQLBench(b, e.name, e.env)
			cfg.Target, cfg.TargetName = tgt, tgt.Name()
			b.ResetTimer()
			if _, err := Run(context.Background(), cfg); err != nil {
				b.Fatal(err)
			}
		})
	}
}

// BenchmarkSQLPlainLoop runs the same statements from 8 goroutines
// without the harness, so that the ratio of the two is what the harness
// costs against a real database.
func BenchmarkSQLPlainLoop(b *testing.B) {
	for _, e := range sqlBenchEngines {
		b.Run(e.name, func(b *testing.B) {
			tgt := openSQLBench(b, e.name, e.env)
			ctx := context.Background()
			if err := tgt.Setup(ctx); err != nil {
				b.Fatal(err)
			}
			plainLoop(b, tgt, 8, 64) // resets the timer
			if err := tgt.Teardown(ctx); err != nil {
				b.Fatal(err)
			}
		})
	}
}
