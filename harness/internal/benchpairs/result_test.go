package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name, out string
		want      result
		err       bool
	}{
		{name: "benchmark line", out: "goos: linux\nBenchmarkSQLHarness/sqlite-2   \t   20000\t    570190 ns/op\t    2821 B/op\nPASS\n",
			want: result{nsPerOp: 570190}},
		{name: "logs after the line", out: "BenchmarkHarnessHTTP-2 20000 116238.5 ns/op\n--- BENCH: BenchmarkHarnessHTTP-2\n    tempdir.go:45: validated\nPASS\n",
			want: result{nsPerOp: 116238.5}},
		{name: "verbose", out: "BenchmarkSQLHarness\nBenchmarkSQLHarness/sqlite\nBenchmarkSQLHarness/sqlite-2 \t 20000\t 570190 ns/op\n--- BENCH: BenchmarkSQLHarness/sqlite-2\n    tempdir.go:45: validated\nPASS\n",
			want: result{nsPerOp: 570190}},
		{name: "skip", out: "BenchmarkSQLHarness\nBenchmarkSQLHarness/postgres\n    bench_sql_test.go:49: no PostgreSQL server answers\n    on 127.0.0.1:5432\n--- SKIP: BenchmarkSQLHarness/postgres\nPASS\n",
			want: result{skip: "bench_sql_test.go:49: no PostgreSQL server answers on 127.0.0.1:5432"}},
		{name: "skip without a reason", out: "--- SKIP: BenchmarkSQLHarness/postgres\nPASS\n",
			want: result{skip: "BenchmarkSQLHarness/postgres"}},
		{name: "nothing", out: "PASS\n", err: true},
		{name: "bad number", out: "BenchmarkX-2 1 abc ns/op\n", err: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parse(tc.out)
			if tc.err {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want float64
	}{
		{[]float64{3}, 3},
		{[]float64{5, 1, 3}, 3},
		{[]float64{6, 1, 2, 5, 3, 4}, 3.5},
	} {
		assert.Equal(t, tc.want, median(tc.in), "%v", tc.in)
	}
}

func TestSummaryRatioIsThroughput(t *testing.T) {
	s := sides{harness: []float64{200e3, 400e3, 100e3}, plain: []float64{100e3, 100e3, 100e3}}
	assert.Equal(t, "db       harness median 200.0 µs/op (200 400 100) | plain median 100.0 µs/op (100 100 100) | "+
		"harness/plain throughput 0.50 (median of pair ratios 0.50)", s.summary("db"))
}
