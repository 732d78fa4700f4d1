package models

import (
	"github.com/fencecheck/fencecheck/histories"
)

// h builds a history from a compact description; IDs follow the order.
type hb struct{ ops []histories.Operation }

func (b *hb) add(op histories.Operation) *hb {
	op.ID = len(b.ops)
	if op.Resource == "" {
		op.Resource = "report"
	}
	b.ops = append(b.ops, op)
	return b
}

// w adds a write by process p with token tok and value v over [call, ret].
func (b *hb) w(p int, tok uint64, v string, call, ret int64, st histories.Status) *hb {
	if st == histories.StatusUnknown {
		ret = histories.Infinity
	}
	return b.add(histories.Operation{Process: p, F: histories.FWrite, Token: tok, HasToken: true, Value: v, HasValue: true, Status: st, Call: call, Return: ret})
}

// r adds a read by process p that returned v with token tok.
func (b *hb) r(p int, v string, tok uint64, call, ret int64) *hb {
	return b.add(histories.Operation{Process: p, F: histories.FRead, Value: v, HasValue: true, Token: tok, HasToken: true, Status: histories.StatusOK, Call: call, Return: ret})
}

// empty adds a read by process p that found the resource unwritten.
func (b *hb) empty(p int, call, ret int64) *hb {
	return b.add(histories.Operation{Process: p, F: histories.FRead, Status: histories.StatusOK, Call: call, Return: ret})
}

// on sets the resource of the last operation added.
func (b *hb) on(resource string) *hb {
	b.ops[len(b.ops)-1].Resource = resource
	return b
}

const (
	acc = histories.StatusAccepted
	rej = histories.StatusRejected
	unk = histories.StatusUnknown
)
