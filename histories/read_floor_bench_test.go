package histories_test

import (
	"bytes"
	"flag"
	"math/rand/v2"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/internal/testsupport/histgen"
)

var readFile = flag.String("read.file", "", "BenchmarkReadFloor: the history to read (default: the 1,000,000-operation benchmark history, generated in memory)")

// floorHistory is the file BenchmarkReadFloor reads: -read.file, or the
// bytes `go run ./check/internal/benchgen -ops 1000000 -clients 50
// -unknown 0.1` writes.
var floorHistory = sync.OnceValues(func() ([]byte, error) {
	if *readFile != "" {
		return os.ReadFile(*readFile)
	}
	r := rand.New(rand.NewPCG(1, 0xbe7c4))
	ops := histgen.Generate(r, histgen.Bench(1000000, 1, 50, 0.1, false))
	var buf bytes.Buffer
	err := histories.Write(&buf, histgen.Events(ops))
	return buf.Bytes(), err
})

// warmHistory is floorHistory touched once, so that no measurement pays
// for the first touch of its pages: on a virtual machine that took the
// floor several times as long as the passes after it.
var warmHistory = sync.OnceValues(func() ([]byte, error) {
	data, err := floorHistory()
	countLines(data)
	return data, err
})

// floorCPU is the processor time per pass of the last floor measurement,
// for the ratio the decoder's measurement reports.
var floorCPU time.Duration

// BenchmarkReadFloor measures, on the same bytes in one run, what reading
// a history costs beside what touching each byte once costs:
//
//   - floor: a loop that only finds the newlines (bytes.IndexByte);
//   - decode: the decoder alone, block by block on one goroutine, as one
//     worker of Read runs it; floor-ratio is its throughput over the
//     floor's, per processor second;
//   - read: the whole of Read as it reads a file, knowing the size:
//     split, decode on every core, pair in file order.
//
// Besides go test's MB/s (bytes per second of wall time), each reports
// MB/cpu-s: bytes per second of processor time the process used, the
// throughput per core, which a loaded machine changes less than the wall
// time.
//
// make bench-read runs it on the 1,000,000-operation benchmark file.
func BenchmarkReadFloor(b *testing.B) {
	data, err := warmHistory()
	if err != nil {
		b.Fatal(err)
	}
	b.Run("floor", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		lines := 0
		cpu := startCPU()
		for b.Loop() {
			lines = countLines(data)
		}
		floorCPU = cpu.report(b, len(data))
		b.ReportMetric(float64(lines), "lines")
	})
	b.Run("decode", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		dec := histories.NewBlockDecoder()
		cpu := startCPU()
		for b.Loop() {
			if _, err := dec.Decode(data); err != nil {
				b.Fatal(err)
			}
		}
		if per := cpu.report(b, len(data)); floorCPU > 0 {
			b.ReportMetric(float64(floorCPU)/float64(per), "floor-ratio")
		}
	})
	b.Run("read", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		cpu := startCPU()
		for b.Loop() {
			if _, err := histories.ReadSized(bytes.NewReader(data), "bench.jsonl", int64(len(data))); err != nil {
				b.Fatal(err)
			}
		}
		cpu.report(b, len(data))
	})
}

// cpuClock measures the processor time of the process, all its threads
// and the garbage collector's included.
type cpuClock time.Duration

func startCPU() cpuClock { return cpuClock(processCPU()) }

// report reports MB/cpu-s for size bytes a pass, and returns the
// processor time of a pass.
func (c cpuClock) report(b *testing.B, size int) time.Duration {
	per := (processCPU() - time.Duration(c)) / time.Duration(b.N)
	b.ReportMetric(float64(size)/1e6/per.Seconds(), "MB/cpu-s")
	return per
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// countLines is the floor: each byte looked at once, for a newline.
func countLines(data []byte) int {
	n := 0
	for {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			return n
		}
		n++
		data = data[i+1:]
	}
}
