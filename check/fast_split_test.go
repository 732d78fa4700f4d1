package check

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/internal/testsupport/histgen"
	"github.com/fencecheck/fencecheck/model"
)

// TestCheckFastSplits checks that collecting a history in stretches, as
// the fast checker does on large histories, judges it and blames the same
// operations exactly as collecting it whole: reads matched across stretches, resources that
// appear in some stretches only, unknown writes capped across stretches.
// Where porcupine finishes (many resources, few clients), the verdict is
// also porcupine's. The differential test covers the algorithm on small
// histories, which are never split.
func TestCheckFastSplits(t *testing.T) {
	t.Parallel()
	tests := []struct {
		resources, clients, ops int
		unknown                 float64
		acceptEqual             bool
		porcupine               bool
	}{
		{1, 50, 30_000, 0.10, false, false},
		{1, 5, 20_000, 0.01, true, false},
		{50, 5, 20_000, 0.10, false, true},
		{50, 50, 20_000, 0.01, true, true},
		{7, 3, 9_000, 0, false, true},
	}
	for _, tc := range tests {
		for _, invalid := range []bool{false, true} {
			for _, ownStrings := range []bool{false, true} {
				name := fmt.Sprintf("resources=%d/clients=%d/ops=%d/unknown=%g/acceptEqual=%v/invalid=%v/ownStrings=%v",
					tc.resources, tc.clients, tc.ops, tc.unknown, tc.acceptEqual, invalid, ownStrings)
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					r := rand.New(rand.NewPCG(uint64(tc.ops), uint64(tc.resources)))
					ops := histgen.Generate(r, histgen.Bench(tc.ops, tc.resources, tc.clients, tc.unknown, tc.acceptEqual))
					if invalid {
						require.True(t, histgen.BreakStaleRead(ops), "no read to make stale")
					}
					if ownStrings {
						// Every operation with bytes of its own, as in a
						// history built in memory rather than read.
						for i := range ops {
							ops[i].Resource = strings.Clone(ops[i].Resource)
							ops[i].Value = strings.Clone(ops[i].Value)
						}
					}
					opts := Options{Policy: model.Strict}
					if tc.acceptEqual {
						opts.Policy = model.AcceptEqual
					}
					whole, err := checkFastIn(context.Background(), ops, opts, 1)
					require.NoError(t, err)
					want := Held
					if invalid {
						want = Violated
					}
					require.Equal(t, want, whole.Verdict)
					for _, chunks := range []int{2, 3, 8} {
						split, err := checkFastIn(context.Background(), ops, opts, chunks)
						require.NoError(t, err)
						require.Equal(t, whole.Verdict, split.Verdict, "%d stretches", chunks)
						require.Equal(t, whole.Blames, split.Blames, "%d stretches", chunks)
						require.Equal(t, whole.CappedWrites, split.CappedWrites, "%d stretches", chunks)
						require.Equal(t, whole.DroppedWrite, split.DroppedWrite, "%d stretches", chunks)
					}
					if tc.porcupine && !ownStrings {
						require.Equal(t, whole.Verdict, porcupineVerdict(t, ops, opts), "porcupine's verdict")
					}
				})
			}
		}
	}
}

// TestCheckFastReadOfDroppedWrite: a read matched while collecting to an
// unknown write that the fencing cap then shows to be a no-op is a
// violation, found whichever way the read was matched.
func TestCheckFastReadOfDroppedWrite(t *testing.T) {
	t.Parallel()
	w := func(token uint64, value string, status histories.Status, call, ret int64) histories.Operation {
		return histories.Operation{F: histories.FWrite, Resource: "r", Token: token, HasToken: true, Value: value,
			HasValue: true, Status: status, Call: call, Return: ret}
	}
	read := histories.Operation{F: histories.FRead, Resource: "r", Value: "old", HasValue: true,
		Status: histories.StatusOK, Call: 50, Return: 60}
	ops := []histories.Operation{
		w(5, "new", histories.StatusAccepted, 0, 10),
		// Invoked after token 5 was accepted: under strict it can never
		// take effect, so the cap drops it.
		w(3, "old", histories.StatusUnknown, 20, histories.Infinity),
		read,
	}
	for i := range ops {
		ops[i].ID = i
	}
	for _, chunks := range []int{1, 2, 3} {
		res, err := checkFastIn(context.Background(), ops, Options{Policy: model.Strict}, chunks)
		require.NoError(t, err)
		require.Equal(t, Violated, res.Verdict, "%d stretches", chunks)
		require.Equal(t, 1, res.DroppedWrite)
	}
	require.Equal(t, Violated, porcupineVerdict(t, ops, Options{Policy: model.Strict}))
}

// porcupineVerdict is porcupine's verdict on ops.
func porcupineVerdict(t *testing.T, ops []histories.Operation, opts Options) Verdict {
	t.Helper()
	res, err := checkPorcupine(context.Background(), ops, opts)
	require.NoError(t, err)
	return res.Verdict
}
