package check

import (
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/model"
)

// stateAtCut returns the write whose state a resource is in after ops
// (a pin and a window, by ID, judged and held, none in flight), the pin
// of the next window, or nil when nothing was written; false when that
// state is not certain, and the window must not be cut (see Stream):
// an unknown write that may still take effect, or, among the writes
// that may have been the last, none that is last in real time.
func stateAtCut(ops []histories.Operation, opts Options) (*histories.Operation, bool) {
	var writes []model.CapWrite
	unknown := 0
	var last []*histories.Operation // the candidates for the last write to take effect
	var highest uint64
	for k := range ops {
		op := &ops[k]
		if !op.IsWrite() || !model.Checkable(op) {
			continue
		}
		if op.Status == histories.StatusUnknown {
			unknown++
		}
		if op.Status != histories.StatusAccepted && op.Status != histories.StatusUnknown {
			continue
		}
		writes = append(writes, model.CapWrite{K: int32(k), Unknown: op.Status == histories.StatusUnknown, Token: op.Token, Ret: op.Return})
		if op.Status != histories.StatusAccepted {
			continue
		}
		switch {
		case opts.Kind == model.KindRegister || len(last) == 0 || op.Token == highest:
			last = append(last, op)
		case op.Token > highest:
			last = append(last[:0], op)
		}
		highest = max(highest, op.Token)
	}
	if unknown > 0 {
		// Only the fencing cap ends an unknown write: every one must be
		// barred by an accepted write of the window.
		if opts.Kind != model.KindFenced || len(model.FencingCap(opts.Policy, writes, nil)) != unknown {
			return nil, false
		}
	}
	return lastInRealTime(last)
}

// lastInRealTime returns the write of ws invoked after every other one
// returned: the one that takes effect last in every legal order; nil for
// none, and false when no write is.
func lastInRealTime(ws []*histories.Operation) (*histories.Operation, bool) {
	if len(ws) == 0 {
		return nil, true
	}
	latest := ws[0]
	for _, w := range ws[1:] {
		if w.Call > latest.Call {
			latest = w
		}
	}
	for _, w := range ws {
		if w != latest && w.Return >= latest.Call {
			return nil, false
		}
	}
	return latest, true
}
