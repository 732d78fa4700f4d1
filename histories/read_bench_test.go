package histories

import (
	"bytes"
	"testing"
)

// BenchmarkRead measures reading and pairing a history held in memory, so
// the figure is the decoder's and the pairer's, not the disk's.
func BenchmarkRead(b *testing.B) {
	var buf []byte
	for i := 0; i < 100000; i++ {
		e := Event{Index: int64(2 * i), Time: int64(20 * i), Process: i % 50, Type: TypeInvoke, F: FWrite,
			Resource: "resource-1", Token: uint64(i + 1), HasToken: true, Value: "worker-17-job-123456", HasValue: true}
		buf = AppendJSON(buf, &e)
		e.Index, e.Time, e.Type, e.Outcome = e.Index+1, e.Time+10, TypeOK, Accepted
		buf = AppendJSON(buf, &e)
	}
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Read(b.Context(), Source{Path: "bench.jsonl", Reader: bytes.NewReader(buf)}); err != nil {
			b.Fatal(err)
		}
	}
}
