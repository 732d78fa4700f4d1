package histories

import "math"

// Status is how an operation ended, as a checker needs to know it.
type Status uint8

// Operation statuses.
const (
	// StatusUnknown: an info completion or none at all. The operation may
	// or may not have taken effect, at any time after its invocation.
	StatusUnknown Status = iota
	// StatusAccepted: a write the receiver reported as applied.
	StatusAccepted
	// StatusRejected: a write the receiver refused as stale.
	StatusRejected
	// StatusOK: a read that returned.
	StatusOK
	// StatusFailed: a fail completion. It definitely took no effect, so
	// checkers leave it out.
	StatusFailed
)

var statusNames = [...]string{"unknown", "accepted", "rejected", "ok", "failed"}

func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return "invalid"
}

// Infinity is the return time of an operation whose outcome is unknown: it
// may take effect at any point after its invocation, as porcupine expects.
const Infinity int64 = math.MaxInt64

// Operation is an invocation paired with its completion.
type Operation struct {
	ID       int // position in History.Operations
	Process  int
	F        string // FWrite or FRead
	Resource string
	// Token is the token a write carried, or the token a read reported
	// (when HasToken).
	Token uint64
	// Value is the value a write wrote, or the value a read returned
	// (when HasValue; a read without a value found the resource unwritten).
	Value  string
	Call   int64 // time of the invocation
	Return int64 // time of the completion, Infinity when unknown
	// InvokeIndex and CompleteIndex locate the two events in the history;
	// CompleteIndex is -1 when the operation never completed.
	InvokeIndex   int64
	CompleteIndex int64
	// Trace is the W3C trace id the request carried (Event.Trace of the
	// invocation), empty when the target carries no trace context.
	Trace string
	// The small fields last, side by side, so that an Operation is 128
	// bytes, not 144: explaining a violation holds its resource's
	// operations in this form, ten million of them on one resource.
	HasToken bool
	HasValue bool
	Status   Status
	// Initial marks the state the resource held before the run (an
	// fInitial event): an accepted write of that value and token that
	// took effect before every operation of the history, at InitialTime.
	// It is not an operation any client performed, so counts and
	// coverage leave it out; checkers judge it like any accepted write.
	Initial bool
}

// InitialTime is the call and return time of an Initial operation: before
// the run started at 0, so before every client operation.
const InitialTime int64 = -1

// IsWrite reports whether o is a write.
func (o *Operation) IsWrite() bool { return o.F == FWrite }
