package harness

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/internal/testsupport/testdb"
	sqltarget "github.com/fencecheck/fencecheck/targets/sqltarget"
)

// sqlBenchEngines are the databases the SQL benchmarks run against:
// SQLite always, PostgreSQL and MariaDB/MySQL whenever their server
// answers (see testdb).
var sqlBenchEngines = []struct {
	name   string
	server *testdb.Server // nil for SQLite
}{
	{"sqlite", nil}, {"postgres", testdb.Postgres()}, {"mysql", testdb.MySQL()},
}

// openSQLBench opens a fresh atomic-mode target for one benchmark run.
func openSQLBench(b *testing.B, server *testdb.Server) *sqltarget.Target {
	b.Helper()
	spec := "sqlite://" + filepath.Join(schema.TempDir(b), "bench.db")
	if server != nil {
		var skip string
		if spec, skip = server.DSN(); skip != "" {
			b.Skip(skip)
		}
	}
	tgt, err := sqltarget.Open(context.Background(), spec, sqltarget.DefaultOptions())
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
			tgt := openSQLBench(b, e.server)
			cfg.Target.Receiver, cfg.Target.Name = tgt, tgt.Name()
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
			tgt := openSQLBench(b, e.server)
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
