package histories

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
)

func TestRecorderConcurrentWritersProduceAValidHistory(t *testing.T) {
	t.Parallel()
	path := filepath.Join(schema.TempDir(t), "history.jsonl")
	f, err := os.Create(path)
	require.NoError(t, err)
	rec := NewRecorder(f, RecorderOptions{BufferBytes: 4096, Retain: true})
	const writers, opsEach = 8, 500
	var wg sync.WaitGroup
	for p := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range opsEach {
				e := Event{Process: p, Type: TypeInvoke, F: FWrite, Resource: "r", Token: uint64(i), HasToken: true, Value: fmt.Sprintf("p%d-%d", p, i), HasValue: true}
				rec.Record(&e)
				c := e
				c.Type, c.Outcome = TypeOK, Accepted
				rec.Record(&c)
				assert.Greater(t, c.Index, e.Index)
			}
		}()
	}
	wg.Wait()
	require.NoError(t, rec.Close())

	h, err := Read(t.Context(), Source{Path: path}) // validates index order, time order and pairing
	require.NoError(t, err)
	assert.Len(t, operations(h), writers*opsEach)
	assert.Equal(t, writers*opsEach*2, h.Events)
	assert.Len(t, rec.Events(), writers*opsEach*2)
}

func TestRecorderFlushesWithoutClose(t *testing.T) {
	t.Parallel()
	path := filepath.Join(schema.TempDir(t), "history.jsonl")
	f, err := os.Create(path)
	require.NoError(t, err)
	rec := NewRecorder(f, RecorderOptions{FlushInterval: 10 * time.Millisecond})
	defer rec.Close()
	e := Event{Process: 0, Type: TypeInvoke, F: FRead, Resource: "r"}
	rec.Record(&e)
	// A killed run keeps what the periodic flush wrote: the history on
	// disk must become readable without Close.
	require.Eventually(t, func() bool {
		h, err := Read(t.Context(), Source{Path: path})
		return err == nil && len(operations(h)) == 1
	}, 5*time.Second, 5*time.Millisecond)
}

func TestRecorderRefusesAfterClose(t *testing.T) {
	t.Parallel()
	rec := NewRecorder(discard{}, RecorderOptions{})
	require.NoError(t, rec.Close())
	e := Event{Process: 0, Type: TypeInvoke, F: FRead, Resource: "r"}
	rec.Record(&e)
	assert.Error(t, rec.Close(), "a record after Close is an error")
}

type stepClock struct{ t []int64 }

func (c *stepClock) Now() int64 { v := c.t[0]; c.t = c.t[1:]; return v }

// TestRecorderTimesStrictlyIncrease: a clock that stands still (the
// virtual clock stamps many events at one instant) or goes backwards
// still gives strictly increasing times, so that a completion and the
// invocation recorded after it are not taken for concurrent.
func TestRecorderTimesStrictlyIncrease(t *testing.T) {
	t.Parallel()
	rec := NewRecorder(discard{}, RecorderOptions{Clock: &stepClock{t: []int64{5, 3, 5, 8}}, Retain: true})
	for range 4 {
		e := Event{Process: 0, Actor: ActorNemesis, F: FStart}
		rec.Record(&e)
	}
	require.NoError(t, rec.Close())
	var times []int64
	for _, e := range rec.Events() {
		times = append(times, e.Time)
	}
	assert.Equal(t, []int64{5, 6, 7, 8}, times)
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// BenchmarkRecord measures the cost of recording one event with eight
// concurrent writers, the harness's default worker count.
func BenchmarkRecord(b *testing.B) {
	for _, sink := range []string{"discard", "file"} {
		b.Run("8writers/"+sink, func(b *testing.B) {
			var rec *Recorder
			if sink == "file" {
				f, err := os.Create(filepath.Join(schema.TempDir(b), "h.jsonl"))
				require.NoError(b, err)
				rec = NewRecorder(f, RecorderOptions{})
			} else {
				rec = NewRecorder(discard{}, RecorderOptions{})
			}
			b.SetParallelism(max(1, 8/runtime.GOMAXPROCS(0)))
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				e := Event{Process: 3, Type: TypeOK, F: FWrite, Resource: "resource-7", Token: 123456, HasToken: true, Value: "worker-3-job-98765", HasValue: true, Outcome: Accepted}
				for pb.Next() {
					rec.Record(&e)
				}
			})
			b.StopTimer()
			require.NoError(b, rec.Close())
		})
	}
}
