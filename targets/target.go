// Package targets defines what fencecheck tests: a receiver that stores a
// value per resource and guards it with fencing tokens. Implementations
// live in the subpackages (memory, process, httptarget, sqltarget,
// redistarget, s3target).
package targets

import (
	"context"
	"errors"

	"github.com/fencecheck/fencecheck/histories"
)

// Reading is what a read of a resource returned.
type Reading struct {
	Found    bool   // false: the resource was never written
	Value    string // the stored value, when Found
	Token    uint64 // the token of the write that produced Value
	HasToken bool   // whether the receiver reports tokens on reads
}

// Target is a receiver under test.
//
//	worker ──Write(resource, token, value)──> Target ──> Accepted | Rejected | error (unknown)
//	worker ──Read(resource)─────────────────> Target ──> Reading | error (unknown)
//
// An error always means the outcome is unknown: the write may or may not
// have taken effect. Implementations must not turn an error into Rejected
// unless they know nothing was applied.
type Target interface {
	Write(ctx context.Context, resource string, token uint64, value string) (histories.Outcome, error)
	Read(ctx context.Context, resource string) (Reading, error)
}

// Setupper is implemented by targets that prepare state before a run
// (a scratch table, a clean receiver).
type Setupper interface {
	Setup(ctx context.Context) error
}

// Teardowner is implemented by targets that clean up after a run.
type Teardowner interface {
	Teardown(ctx context.Context) error
}

// ErrDefinitelyNotApplied wraps errors after which the target guarantees
// that the write did not take effect (it was never sent). The harness
// records such writes as fail rather than info.
var ErrDefinitelyNotApplied = errors.New("targets: definitely not applied")
