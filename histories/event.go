// Package histories holds the operation record that every part of fencecheck
// shares: the events a run produces (Event), the Recorder that writes them to
// disk as they happen, and the pairing of invocations with completions into
// the operations that checkers judge.
//
// A history has one form, History. Read gives it from files or streams
// (laying several end to end, as one), Pair from events in memory and
// FromOperations from operations; Count counts it and Evidence measures what a
// verdict on it stands on; Operation(k) is the view of one of its
// operations in the full form (Operation). A history read as it is
// written, which is never held whole, is paired by a Follower, which
// hands each operation on as it begins and ends and counts them as Count
// and Evidence would.
//
// The on-disk format is JSON Lines, one event per line, documented for users
// in docs/history-format.md. It is deliberately flat so that a history can be
// produced by hand, by another tool, or by a killed run that managed to flush
// only part of its buffer.
package histories

// Type says what a client event is: the start of an operation or one of the
// three ways it can end. Jepsen uses the same four words, and the difference
// between fail and info is the heart of checking under faults: a fail
// definitely had no effect, an info might have.
type Type uint8

// The event types. Events of other actors (lease, nemesis, harness) carry
// none: their Type is the zero value, which the file leaves out.
const (
	typeNone Type = iota
	TypeInvoke
	TypeOK
	TypeFail
	TypeInfo
)

var typeNames = [...]string{typeNone: "", TypeInvoke: "invoke", TypeOK: "ok", TypeFail: "fail", TypeInfo: "info"}

// String returns the word used in the history file.
func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return "unknown"
}

// Outcome is what a receiver answered to a write it processed.
type Outcome uint8

// Write outcomes. OutcomeNone is used on every event that is not the
// completion of a write.
const (
	OutcomeNone Outcome = iota
	Accepted
	Rejected
)

var outcomeNames = [...]string{OutcomeNone: "", Accepted: "accepted", Rejected: "rejected"}

// String returns the word used in the history file.
func (o Outcome) String() string {
	if int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return "unknown"
}

// Client functions. Other actors use functions of their own (acquire,
// expire, release, start, stop), so F is a string rather than an enum.
const (
	FWrite = "write"
	FRead  = "read"
)

// Actors other than client processes.
const (
	ActorLease   = "lease"
	ActorNemesis = "nemesis"
	// actorHarness is fencecheck itself, stating facts about the run that
	// no client operation records (the header, InitialState).
	actorHarness = "harness"
)

// fInitial is the harness's statement of a resource's state before the
// run (InitialState).
const fInitial = "initial"

// InitialState is the event that states what resource held when the run
// observed it, before any worker wrote: value with token, and detail for
// people. Checkers start the resource's register from that state instead
// of "never written" (see Operation.Initial). It says nothing about how
// the value got there: a write the run never saw is taken as accepted.
func InitialState(resource, value string, token uint64, detail string) Event {
	return Event{Process: -1, Actor: actorHarness, F: fInitial, Resource: resource,
		Token: token, HasToken: true, Value: value, HasValue: true, Detail: detail}
}

// Lease and nemesis functions that reports understand.
const (
	FAcquire = "acquire"
	FExpire  = "expire"
	FRelease = "release"
	FRenew   = "renew"  // a holder's keepalive extended its lease
	FRevoke  = "revoke" // the issuer ended a lease on request (etcd's lease revoke)
	FStart   = "start"  // a fault's window opens (the schedule switched it on)
	FStop    = "stop"   // a fault's window closes
	FBegin   = "begin"  // one action of a fault begins (a worker held, a write delayed)
	FEnd     = "end"    // that action ends
	// FLeader: the token issuer's leader changed, as a fault that took
	// its servers down saw it (issuer-kill, issuer-pause).
	FLeader = "leader"
	// FRestore: a fault begins to restore the token issuer from a
	// snapshot (issuer-restore): its servers stop; the fault's next
	// FEnd says when the issuer serves again and what became of its
	// sequence. The issuer's check names the restore in a violation whose
	// grants it came between (check.IssuerViolation.Restore).
	FRestore = "restore"
	// FCrash: a fault crashed the receiver (kill's SIGKILL; the process
	// is gone when it is recorded). The fault's next FEnd says when the
	// receiver answers again. A write invoked after it and answered was
	// answered by the restarted receiver: how the coverage knows a stale
	// write crossed a crash (judge.Coverage.StaleAfterCrash). Histories
	// recorded before it was added mark the crash with an FBegin, and
	// their coverage counts no such write.
	FCrash = "crash"
)

// Event is one line of a history.
//
// A client event has Actor == "" and a Process ≥ 0. Events of the lease
// service and the nemesis set Actor and leave Process at -1; they are no
// operations, and reports show them. The lease service's grants are
// judged on their own, for the issuer's invariant (check.CheckIssuer).
type Event struct {
	Index   int64  // position in the history, 0-based, strictly increasing
	Time    int64  // nanoseconds since the run started; non-decreasing
	Process int    // client process; -1 for other actors
	Actor   string // "" for clients, else "lease", "nemesis" or "harness"
	Type    Type
	// Format is the header's format version (fHeader, formatVersion);
	// 0 on every other event. Small, as it fills what would be padding.
	Format    uint8
	F         string
	Resource  string
	Token     uint64
	HasToken  bool // Token was present (always on writes; optional on read completions)
	Value     string
	HasValue  bool // Value was present and not null
	Outcome   Outcome
	Holder    int // lease events: the worker holding the lease
	HasHolder bool
	Fault     string // nemesis events: which fault
	Detail    string // free text for people
	// Error is what the target answered instead of an outcome, on fail
	// and info completions: the evidence a person needs when a run
	// exercised nothing (every write failed).
	Error string
	// Trace is the W3C trace id (32 lowercase hex digits) the harness
	// sent with a client's request, on its invoke event, so that a person
	// can find the request in the receiver's own logs and traces. Empty
	// when the target does not carry trace context (memory targets).
	Trace string
}

// isClient reports whether the event belongs to a client process.
func (e *Event) isClient() bool { return e.Actor == "" }
