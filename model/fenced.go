package model

import (
	"fmt"
	"hash/maphash"
	"html"

	"github.com/anishathalye/porcupine"

	"github.com/fencecheck/fencecheck/histories"
)

// Input is what a client asked of a resource, as porcupine sees it.
type Input struct {
	Write bool
	Token uint64 // writes only
	Value string // writes only
}

// Output is what the resource answered.
type Output struct {
	Status   histories.Status // Accepted, Rejected, OK (reads) or Unknown (writes only)
	Value    string           // reads: the value read
	HasValue bool             // reads: false when the resource was never written
	Token    uint64           // reads: the token reported
	HasToken bool             // reads: whether a token was reported
}

// State is the state of one resource: the value of the last accepted write
// and the highest accepted token. It is comparable, so porcupine can
// compare states with ==.
type State struct {
	Token   uint64
	Value   string
	Written bool
}

var hashSeed = maphash.MakeSeed()

func hashState(s interface{}) uint64 {
	st := s.(State)
	return maphash.String(hashSeed, st.Value) ^ st.Token*0x9e3779b97f4a7c15
}

// Fenced returns the fenced-register model for porcupine, partitioned by
// resource. Writes with unknown outcome make it nondeterministic (they may
// or may not have taken effect), so it is built as a
// porcupine.NondeterministicModel and converted with ToModel.
func Fenced(p Policy) porcupine.Model {
	nm := porcupine.NondeterministicModel{
		Partition: partitionByResource,
		Init:      func() []interface{} { return []interface{}{State{}} },
		Step: func(state, input, output interface{}) []interface{} {
			return stepFenced(p, state.(State), input.(Input), output.(Output))
		},
		Hash:                      hashState,
		DescribeOperation:         describeOperation,
		DescribeState:             describeState,
		DescribeOperationMetadata: describeMetadata,
	}
	return nm.ToModel()
}

// stepFenced applies one operation to a state. An accepted write needs
// MayAccept and a rejected one MayReject, each checked on its own: under
// accept-equal both hold at an equal token, so a resource may answer
// either way there. A rejection the model would not make is a violation
// too: a receiver that refuses its current owner is broken, not safe. A
// write with unknown outcome may have taken effect iff it may have been
// accepted; not taking effect is always possible.
func stepFenced(p Policy, s State, in Input, out Output) []interface{} {
	if !in.Write {
		return stepRead(s, out)
	}
	next := State{Token: in.Token, Value: in.Value, Written: true}
	switch out.Status {
	case histories.StatusAccepted:
		if p.MayAccept(s.Token, in.Token) {
			return []interface{}{next}
		}
	case histories.StatusRejected:
		if p.MayReject(s.Token, in.Token) {
			return []interface{}{s}
		}
	case histories.StatusUnknown:
		if p.MayAccept(s.Token, in.Token) {
			return []interface{}{s, next}
		}
		return []interface{}{s}
	}
	return nil
}

func stepRead(s State, out Output) []interface{} {
	if out.HasValue != s.Written {
		return nil
	}
	if out.HasValue && out.Value != s.Value {
		return nil
	}
	if out.HasToken && out.Token != s.Token {
		return nil
	}
	return []interface{}{s}
}

func partitionByResource(history []porcupine.Operation) [][]porcupine.Operation {
	index := make(map[string]int)
	var parts [][]porcupine.Operation
	for _, op := range history {
		r := op.Metadata.(Meta).Resource
		i, ok := index[r]
		if !ok {
			i = len(parts)
			index[r] = i
			parts = append(parts, nil)
		}
		parts[i] = append(parts[i], op)
	}
	return parts
}

// Meta travels with each porcupine operation so that results can be
// mapped back to the history.
type Meta struct {
	Resource string
	OpID     int // histories.Operation.ID
	Process  int
	Capped   bool // the fencing cap shortened its interval
}

func describeMetadata(m interface{}) string {
	meta, ok := m.(Meta)
	if !ok {
		return ""
	}
	s := fmt.Sprintf("process %d, resource %s, operation #%d", meta.Process, html.EscapeString(meta.Resource), meta.OpID)
	if meta.Capped {
		s += " (unknown outcome; interval capped by the fencing cap)"
	}
	return s
}

// describeOperation renders an operation for porcupine's visualization.
func describeOperation(input, output interface{}) string {
	// Porcupine's page sets an operation's description as text, but
	// states and metadata as HTML: only those are escaped.
	return DescribeOperation(input.(Input), output.(Output))
}

func describeState(state interface{}) string {
	return html.EscapeString(DescribeState(state.(State)))
}

// DescribeOperation renders an operation as plain text, for example
// `write(41, "old-result") → rejected`.
func DescribeOperation(in Input, out Output) string {
	if in.Write {
		return fmt.Sprintf("write(%d, %q) → %s", in.Token, in.Value, out.Status)
	}
	return "read() → " + describeRead(out)
}

func describeRead(out Output) string {
	if !out.HasValue {
		if out.HasToken {
			return fmt.Sprintf("not found @%d", out.Token)
		}
		return "not found"
	}
	if out.HasToken {
		return fmt.Sprintf("%q @%d", out.Value, out.Token)
	}
	return fmt.Sprintf("%q", out.Value)
}

// DescribeState renders a resource state as plain text.
func DescribeState(s State) string {
	if !s.Written {
		return "never written"
	}
	return fmt.Sprintf("%q @%d", s.Value, s.Token)
}

// DescribeHistoryOp renders an operation of a history for people. The
// state before the run is no client's write, and says so.
func DescribeHistoryOp(op *histories.Operation) string {
	if op.Initial {
		return fmt.Sprintf("state before the run: token %d value %q", op.Token, op.Value)
	}
	if op.IsWrite() {
		return fmt.Sprintf("write token %d value %q → %s", op.Token, op.Value, op.Status)
	}
	if op.Status == histories.StatusUnknown {
		return "read → unknown"
	}
	return "read → " + describeRead(Output{Value: op.Value, HasValue: op.HasValue, Token: op.Token, HasToken: op.HasToken})
}
