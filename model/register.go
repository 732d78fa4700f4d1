package model

import (
	"github.com/anishathalye/porcupine"

	"github.com/fencecheck/fencecheck/histories"
)

// Register returns the plain register model: the last accepted write wins,
// whatever its token. It judges only whether reads are consistent with
// some order of the writes. Checking a history against both models shows
// what fencing adds: the article's unfenced trace is a perfectly good
// register history, and a fenced-register violation.
func Register() porcupine.Model {
	nm := porcupine.NondeterministicModel{
		Partition: partitionByResource,
		Init:      func() []interface{} { return []interface{}{State{}} },
		Step: func(state, input, output interface{}) []interface{} {
			s, in, out := state.(State), input.(Input), output.(Output)
			if !in.Write {
				return stepRead(s, out)
			}
			next := State{Token: in.Token, Value: in.Value, Written: true}
			switch out.Status {
			case histories.StatusAccepted:
				return []interface{}{next}
			case histories.StatusRejected:
				// A register that refuses a write simply keeps its
				// value; only fencing says which refusals are right.
				return []interface{}{s}
			default:
				return []interface{}{s, next}
			}
		},
		Hash:                      hashState,
		DescribeOperation:         describeOperation,
		DescribeState:             describeState,
		DescribeOperationMetadata: describeMetadata,
	}
	return nm.ToModel()
}
