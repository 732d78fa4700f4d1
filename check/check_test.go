package check

import (
	"context"
	"errors"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/internal/testsupport/histgen"
	"github.com/fencecheck/fencecheck/model"
)

func TestCheckFallsBackToPorcupine(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	unique := new(hb).W(1, 42, "new", 0, 10, acc).W(0, 41, "old", 20, 30, acc).Ops
	res, err := Check(ctx, histories.FromOperations(unique), Options{})
	require.NoError(t, err)
	assert.Equal(t, "fast", res.Checker)
	assert.Empty(t, res.Notes)
	assert.Equal(t, Violated, res.Verdict)
	assert.Equal(t, []string{"report"}, res.Blamed())

	repeated := new(hb).W(1, 42, "same", 0, 10, acc).W(1, 43, "same", 20, 30, acc).R(2, "same", 43, 40, 50).Ops
	res, err = Check(ctx, histories.FromOperations(repeated), Options{})
	require.NoError(t, err)
	assert.Equal(t, "porcupine", res.Checker)
	require.Len(t, res.Notes, 1)
	assert.Equal(t, NoteFallback, res.Notes[0].Kind)
	assert.Equal(t, &Unsupported{Resource: "report", Value: "same", Writes: [2]int{0, 1}}, res.Notes[0].Unsupported)
	assert.Equal(t, `the fast checker cannot judge this history (resource "report": value "same" is written by operations #0 and #1); falling back to porcupine`,
		res.Notes[0].String())
	assert.Equal(t, Held, res.Verdict)

	res, err = Check(ctx, histories.FromOperations(unique), Options{Kind: model.KindRegister})
	require.NoError(t, err)
	assert.Equal(t, "porcupine", res.Checker)
	require.Len(t, res.Notes, 1)
	assert.Equal(t, model.KindRegister, res.Notes[0].Unsupported.Model)
	assert.Equal(t, Held, res.Verdict)
}

func TestCheckBoth(t *testing.T) {
	t.Parallel()
	verdict := func(v Verdict, checker string) Result {
		res := Result{Verdict: v, Checker: checker}
		if v == Violated {
			res.Blames = []Blame{{Resource: "report"}}
		}
		if v == Inconclusive {
			res.TimedOut = []string{"report"}
		}
		return res
	}
	tests := []struct {
		name      string
		fast, ref Verdict
		want      Verdict
		err       string
		note      NoteKind
		text      string
	}{
		{"agree held", Held, Held, Held, "", NoteReferenceAgrees, "porcupine agrees: held"},
		{"agree violated", Violated, Violated, Violated, "", NoteReferenceAgrees, `porcupine agrees: violated on "report"`},
		{"porcupine gives up", Violated, Inconclusive, Violated, "", NoteReferenceGaveUp, "porcupine gave up"},
		{"disagree", Held, Violated, "", `checkers disagree: fast says held, porcupine says violated on "report"`, 0, ""},
		{"disagree the other way", Violated, Held, "", `checkers disagree: fast says violated on "report", porcupine says held`, 0, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := checkers{
				fast: func(context.Context, *histories.History, Options) (Result, error) {
					return verdict(tc.fast, "fast"), nil
				},
				porcupine: func(context.Context, []histories.Operation, Options) (Result, error) {
					return verdict(tc.ref, "porcupine"), nil
				},
			}
			res, err := c.judge(context.Background(), &source{}, Options{Checker: Both})
			if tc.err != "" {
				require.Error(t, err)
				assert.True(t, IsDisagreement(err), "%v is a Disagreement", err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, res.Verdict)
			assert.Equal(t, "fast", res.Checker)
			require.Len(t, res.Notes, 1)
			assert.Equal(t, tc.note, res.Notes[0].Kind)
			assert.True(t, strings.HasPrefix(res.Notes[0].String(), tc.text), "note %q, want %q", res.Notes[0], tc.text)
		})
	}
}

// cancelAt is a context that is cancelled at its at-th look (Err): a
// checker that looks between pieces of work is cancelled while it runs,
// whatever the speed of the machine. It counts the looks.
type cancelAt struct {
	context.Context
	cancel context.CancelFunc
	at     int64
	looks  atomic.Int64
}

func newCancelAt(at int64) *cancelAt {
	ctx, cancel := context.WithCancel(context.Background())
	return &cancelAt{Context: ctx, cancel: cancel, at: at}
}

func (c *cancelAt) Err() error {
	if c.looks.Add(1) == c.at {
		c.cancel()
	}
	return c.Context.Err()
}

// TestCheckStopsWhenCancelled cancels a check of many resources after a
// few: every checker looks at the context before each resource, so a
// check that goes on working after the cancellation keeps looking. It
// must return the context's error, having looked only a few more times
// (one per worker that was between two looks).
func TestCheckStopsWhenCancelled(t *testing.T) {
	t.Parallel()
	const resources = 1000
	r := rand.New(rand.NewPCG(1, 2))
	ops := histgen.Generate(r, histgen.Bench(20*resources, resources, 5, 0.01, false))
	for _, checker := range []Checker{Fast, Porcupine, Both} {
		t.Run(checker.String(), func(t *testing.T) {
			t.Parallel()
			before := newCancelAt(1 << 40) // never: how often a whole check looks
			_, err := Check(before, histories.FromOperations(ops), Options{Checker: checker})
			require.NoError(t, err)
			require.Greater(t, before.looks.Load(), int64(resources), "a whole check looks before each resource")

			const at = 10
			ctx := newCancelAt(at)
			_, err = Check(ctx, histories.FromOperations(ops), Options{Checker: checker})
			require.Error(t, err)
			assert.True(t, errors.Is(err, context.Canceled), "error %v", err)
			assert.LessOrEqual(t, ctx.looks.Load(), int64(at+runtime.GOMAXPROCS(0)+1), "looks after the cancellation")
		})
	}

	t.Run("cancelled before", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := Check(ctx, histories.FromOperations(ops), Options{})
		assert.ErrorIs(t, err, context.Canceled)
	})
}
