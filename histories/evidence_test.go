package histories

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestEvidence(t *testing.T) {
	t.Parallel()
	w := func(id int, res string, st Status, call, ret int64) Operation {
		return Operation{ID: id, F: FWrite, Resource: res, Status: st, Call: call, Return: ret}
	}
	r := func(id int, res string, st Status, call, ret int64) Operation {
		return Operation{ID: id, F: FRead, Resource: res, Status: st, Call: call, Return: ret}
	}
	initial := Operation{F: FWrite, Resource: "a", Status: StatusAccepted, Call: InitialTime, Return: InitialTime, Initial: true}
	for _, tc := range []struct {
		name string
		ops  []Operation
		thin []string // "resource: why"
		none bool     // no resources at all
	}{
		{name: "nothing", none: true},
		{name: "only the state before the run", ops: []Operation{initial}, none: true},
		{name: "an acknowledged write read back", ops: []Operation{w(0, "a", StatusAccepted, 1, 2), r(1, "a", StatusOK, 3, 4)}},
		{name: "a rejection read back", ops: []Operation{w(0, "a", StatusRejected, 1, 2), r(1, "a", StatusOK, 3, 4)}},
		{name: "the state before the run is no acknowledged write", ops: []Operation{initial, r(1, "a", StatusOK, 3, 4)},
			thin: []string{"a: no write was sent"}},
		{name: "every write unknown or failed", ops: []Operation{w(0, "a", StatusUnknown, 1, Infinity), w(1, "a", StatusFailed, 2, 3), r(2, "a", StatusOK, 4, 5)},
			thin: []string{"a: no write was acknowledged (2 writes: 1 with unknown outcome, 1 failed)"}},
		{name: "no read returned", ops: []Operation{w(0, "a", StatusAccepted, 1, 2), r(1, "a", StatusUnknown, 3, Infinity)},
			thin: []string{"a: no read returned"}},
		{name: "the only read began before the write returned", ops: []Operation{r(0, "a", StatusOK, 1, 5), w(1, "a", StatusAccepted, 2, 3)},
			thin: []string{"a: no read began after an acknowledged write had returned"}},
		{name: "the only read began while the write was in flight", ops: []Operation{w(0, "a", StatusAccepted, 1, 5), r(1, "a", StatusOK, 3, 6)},
			thin: []string{"a: no read began after an acknowledged write had returned"}},
		{name: "one resource of two", ops: []Operation{w(0, "a", StatusAccepted, 1, 2), r(1, "a", StatusOK, 3, 4), r(2, "b", StatusOK, 5, 6)},
			thin: []string{"b: no write was sent"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev := FromOperations(tc.ops).Evidence()
			var thin []string
			for _, th := range ev.Thin {
				thin = append(thin, th.Resource+": "+th.Why)
			}
			assert.Equal(t, tc.thin, thin)
			assert.Equal(t, tc.none, ev.Resources == 0)
			assert.Equal(t, !tc.none && len(tc.thin) == 0, ev.Enough())
			if !ev.Enough() {
				assert.NotEmpty(t, ev.Reason())
			}
		})
	}
}

// BenchmarkEvidence measures the evidence of a million operations on 50
// resources, in runs of one resource as histories have them; check and
// run measure it on every history they judge.
func BenchmarkEvidence(b *testing.B) {
	ops := make([]Operation, 1_000_000)
	for i := range ops {
		ops[i] = Operation{ID: i, F: FWrite, Resource: fmt.Sprintf("r%d", (i/8)%50), Status: StatusAccepted, Call: int64(i), Return: int64(i + 1)}
		if i%2 == 1 {
			ops[i].F, ops[i].Status = FRead, StatusOK
		}
	}
	h := FromOperations(ops)
	b.ResetTimer()
	for range b.N {
		if !h.Evidence().Enough() {
			b.Fatal("no evidence")
		}
	}
}
