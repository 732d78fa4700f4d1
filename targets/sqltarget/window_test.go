package sqltarget

import (
	"context"
	"sync"
	"testing"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCheckThenSetWindow drives two writers through the comparison before
// either updates, on every engine at its default isolation: the older
// token updates last and wins, which is the race the harness's window
// fault provokes.
func TestCheckThenSetWindow(t *testing.T) {
	t.Parallel()
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			tgt := open(t, e.spec(t), modeOptions(ModeCheckThenSet))
			out, err := tgt.Write(ctx, "r", 40, "first")
			require.NoError(t, err)
			require.Equal(t, histories.Accepted, out)

			var checked sync.WaitGroup
			checked.Add(2)
			newerDone := make(chan struct{})
			tgt.SetWindow(func(_ context.Context, _ string, token uint64) {
				checked.Done()
				checked.Wait() // both compared against token 40
				if token == 41 {
					<-newerDone // 41 updates after 42 committed
				}
			})
			outs := make(map[uint64]histories.Outcome)
			var mu sync.Mutex
			var wg sync.WaitGroup
			for _, tok := range []uint64{41, 42} {
				wg.Go(func() {
					out, err := tgt.Write(ctx, "r", tok, "v")
					assert.NoError(t, err)
					mu.Lock()
					outs[tok] = out
					mu.Unlock()
					if tok == 42 {
						close(newerDone)
					}
				})
			}
			wg.Wait()
			assert.Equal(t, map[uint64]histories.Outcome{41: histories.Accepted, 42: histories.Accepted}, outs)
			r, err := tgt.Read(ctx, "r")
			require.NoError(t, err)
			assert.Equal(t, uint64(41), r.Token, "the stale write landed last")
		})
	}
}

// TestTablesAreScratch checks that every target gets a table of its own
// and that Teardown removes it.
func TestTablesAreScratch(t *testing.T) {
	t.Parallel()
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			spec := e.spec(t)
			a, err := Open(ctx, spec, DefaultOptions())
			require.NoError(t, err)
			defer a.Close()
			b := open(t, spec, DefaultOptions())
			assert.NotEqual(t, a.Table(), b.Table())
			require.NoError(t, a.Setup(ctx))
			_, err = a.Write(ctx, "r", 1, "v")
			require.NoError(t, err)
			require.NoError(t, a.Teardown(ctx))
			_, err = a.Read(ctx, "r")
			assert.Error(t, err, "the table is gone")
			r, err := b.Read(ctx, "r")
			require.NoError(t, err)
			assert.False(t, r.Found, "the other run's table never saw the write")
		})
	}
}
