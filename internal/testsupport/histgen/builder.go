package histgen

import "github.com/fencecheck/fencecheck/histories"

// Builder builds a history by hand, for tests: each method appends one
// operation, with the next ID, on resource "report" unless On says
// otherwise.
type Builder struct{ Ops []histories.Operation }

// Add appends op, with the next ID.
func (b *Builder) Add(op histories.Operation) *Builder {
	op.ID = len(b.Ops)
	if op.Resource == "" {
		op.Resource = "report"
	}
	b.Ops = append(b.Ops, op)
	return b
}

// W adds a write by process p with token tok and value v over [call, ret];
// an unknown write returns at histories.Infinity.
func (b *Builder) W(p int, tok uint64, v string, call, ret int64, st histories.Status) *Builder {
	if st == histories.StatusUnknown {
		ret = histories.Infinity
	}
	return b.Add(histories.Operation{Process: p, F: histories.FWrite, Token: tok, HasToken: true, Value: v, HasValue: true, Status: st, Call: call, Return: ret})
}

// R adds a read by process p that returned v with token tok.
func (b *Builder) R(p int, v string, tok uint64, call, ret int64) *Builder {
	return b.Add(histories.Operation{Process: p, F: histories.FRead, Value: v, HasValue: true, Token: tok, HasToken: true, Status: histories.StatusOK, Call: call, Return: ret})
}

// Empty adds a read by process p that found the resource unwritten.
func (b *Builder) Empty(p int, call, ret int64) *Builder {
	return b.Add(histories.Operation{Process: p, F: histories.FRead, Status: histories.StatusOK, Call: call, Return: ret})
}

// On sets the resource of the last operation added.
func (b *Builder) On(resource string) *Builder {
	b.Ops[len(b.Ops)-1].Resource = resource
	return b
}
