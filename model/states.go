package model

import "github.com/fencecheck/fencecheck/histories"

// maxInitStates bounds the states a view may start from; porcupine's
// search grows with their number.
const maxInitStates = 16

// StatesBefore returns the states a fenced resource may be in once the
// operations in before (all of one resource, all returned before the
// view starts) have taken effect: the value of an accepted write with the
// highest accepted token, or of a write with unknown outcome that may
// have been accepted after it (Policy.MayAccept). If the operations before
// are themselves linearizable, the real state is among them.
func StatesBefore(before []histories.Operation, p Policy) []State {
	var highest uint64
	written := false
	for i := range before {
		if op := &before[i]; op.IsWrite() && op.Status == histories.StatusAccepted {
			highest, written = max(highest, op.Token), true
		}
	}
	var out []State
	seen := make(map[State]bool)
	add := func(s State) {
		if !seen[s] && len(out) < maxInitStates {
			seen[s] = true
			out = append(out, s)
		}
	}
	if !written {
		add(State{})
	}
	for i := len(before) - 1; i >= 0; i-- { // latest first: they matter most
		op := &before[i]
		switch {
		case !op.IsWrite():
		case op.Status == histories.StatusAccepted && op.Token == highest:
			add(State{Token: op.Token, Value: op.Value, Written: true})
		case op.Status == histories.StatusUnknown && (!written || p.MayAccept(highest, op.Token) || op.Token == highest):
			add(State{Token: op.Token, Value: op.Value, Written: true})
		}
	}
	return out
}
