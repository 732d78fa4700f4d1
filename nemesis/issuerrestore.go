package nemesis

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/lease"
)

// RestoreGrants is how many grants per resource (of at most
// restoreResources) an IssuerRestore sees after its snapshot before it
// restores it: grants that the restore then makes the issuer forget.
const RestoreGrants = 3

// restoreResources bounds the resources whose grants the restore waits
// for: a run over many resources would otherwise wait for grants on
// every one of them.
const restoreResources = 8

// IssuerRestore restores the token issuer from a snapshot taken during
// the run, as an operator restores a cluster from a backup: the issuer
// forgets every grant made since the snapshot. An embedded etcd cluster
// restored without etcdutl's --bump-revision goes back to the
// snapshot's revision and grants tokens again below those it granted
// after it (issuer-restore: the issuer's check finds it, naming the
// restore); with the revision bumped past every grant and marked
// compacted (issuer-restore-bumped), every grant after the restore is
// above every grant before it.
//
// Both act on events, not on a timer: the first worker at its pause
// point in the fault phase (it holds a lease, so the issuer has granted
// one) takes the snapshot; the restore comes at the pause point where
// the fault has seen RestoreGrants tokens above the snapshot on each
// resource (the run's first restoreResources), and holds every worker at
// its pause point until the issuer serves again, so that the run's
// remaining work, and its next grants, come after the restore. A run
// whose work ends first is inconclusive (no grant after the restore).
// There is one restore per run. It needs a lease service that is a
// lease.Restorer.
type IssuerRestore struct {
	toggle
	issuer *SharedIssuer
	bump   bool

	phase atomic.Bool
	mu    sync.Mutex
	stage restoreStage
	at    uint64                     // the snapshot's place in the sequence
	seen  map[string]map[uint64]bool // tokens above at, seen at pause points, by resource
	began int64                      // when the restore began, on the run's clock
}

type restoreStage int

const (
	beforeSnapshot restoreStage = iota
	snapshotting
	afterSnapshot
	restored // or restoring, or given up
)

// restoreAction is what a pause point does.
type restoreAction int

const (
	noAction restoreAction = iota
	takeSnapshot
	restoreSnapshot
)

// NewIssuerRestore returns the issuer-restore fault: the restore of an
// operator who forgets --bump-revision.
func NewIssuerRestore() *IssuerRestore {
	return &IssuerRestore{toggle: toggle{name: "issuer-restore"}}
}

// NewIssuerRestoreBumped returns the issuer-restore-bumped fault: the
// restore done as etcd documents it, its revision bumped past every
// grant and marked compacted.
func NewIssuerRestoreBumped() *IssuerRestore {
	return &IssuerRestore{toggle: toggle{name: "issuer-restore-bumped"}, bump: true}
}

// Available implements Fault: a restore acts on servers fencecheck
// started itself.
func (f *IssuerRestore) Available(site Site) error {
	if !site.IssuerServers {
		return &Unavailable{Fault: f.name, Needs: NeedIssuerServers}
	}
	return nil
}

// AttachIssuer implements IssuerAttacher.
func (f *IssuerRestore) AttachIssuer(s *SharedIssuer) { f.issuer = s }

// RestoresIssuer implements IssuerRestorer.
func (f *IssuerRestore) RestoresIssuer() {}

// Act implements Actor: the fault phase has begun; the fault acts at
// pause points.
func (f *IssuerRestore) Act(_ context.Context, env Env) {
	if f.issuer == nil {
		env.Fail(fmt.Errorf("%s fault: the run handed it no issuer servers", f.name))
		return
	}
	if _, ok := f.issuer.servers.(lease.Restorer); !ok {
		env.Fail(fmt.Errorf("%s fault: the run's issuer cannot be restored from a snapshot", f.name))
		return
	}
	f.phase.Store(true)
}

// Pause implements Pauser: the snapshot, then the restore, at pause
// points; every worker waits while the restore is under way.
func (f *IssuerRestore) Pause(ctx context.Context, env Env, p PausePoint) {
	s := f.issuer
	if s == nil {
		return // Act reports it
	}
	r, ok := s.servers.(lease.Restorer)
	if ok && f.phase.Load() {
		switch f.next(env, p) {
		case takeSnapshot:
			f.snapshot(ctx, env, r, p)
		case restoreSnapshot:
			f.restore(ctx, env, r)
		case noAction:
		}
	}
	s.holdWhileDown(ctx)
}

// next notes the pause point and says what to do at it.
func (f *IssuerRestore) next(env Env, p PausePoint) restoreAction {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch f.stage {
	case beforeSnapshot:
		f.stage = snapshotting
		return takeSnapshot
	case afterSnapshot:
		if p.Token <= f.at {
			return noAction
		}
		if f.seen[p.Resource] == nil {
			f.seen[p.Resource] = map[uint64]bool{}
		}
		f.seen[p.Resource][p.Token] = true
		resources := env.Resources()
		resources = resources[:min(len(resources), restoreResources)]
		for _, res := range resources {
			if len(f.seen[res]) < RestoreGrants {
				return noAction
			}
		}
		f.stage = restored
		return restoreSnapshot
	case snapshotting, restored:
	}
	return noAction
}

// snapshot takes the snapshot and records it as the fault's action. No
// other issuer fault takes a server down meanwhile: the snapshot is
// read from a server that serves.
func (f *IssuerRestore) snapshot(ctx context.Context, env Env, r lease.Restorer, p PausePoint) {
	var at uint64
	err := fmt.Errorf("no snapshot: a server stayed down for %v", holdWait)
	if f.issuer.reserve(ctx, env, false) {
		at, err = r.Snapshot(ctx)
		f.issuer.release()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if ctx.Err() != nil { // the run ended first: no snapshot, and no failure
		f.stage = restored
		return
	}
	if err != nil {
		f.stage = restored
		env.Fail(fmt.Errorf("%s fault: %w", f.name, err))
		return
	}
	f.at, f.seen, f.stage = at, map[string]map[uint64]bool{}, afterSnapshot
	record(env, f.name, histories.FBegin, fmt.Sprintf("snapshot of the issuer, its sequence at %d, while worker %d holds token %d on %s; it is restored after %d grants above it on each resource",
		at, p.Worker, p.Token, p.Resource, RestoreGrants))
}

// restore restores the snapshot, holding every worker at its pause
// point until the issuer serves again.
func (f *IssuerRestore) restore(ctx context.Context, env Env, r lease.Restorer) {
	s := f.issuer
	if !s.reserve(ctx, env, true) {
		return
	}
	defer s.release()
	began := env.Runtime().Now()
	// Recorded before the servers stop: a worker that is not at its
	// pause point may be granted a lease by the restored issuer before
	// Restore returns, and that grant must come after this event.
	how := "its sequence not bumped"
	if f.bump {
		how = "its sequence bumped past every grant"
	}
	record(env, f.name, histories.FRestore, fmt.Sprintf("every server stopped and restored from the snapshot at %d, %s", f.at, how))
	// The issuer comes back even if the fault phase ended meanwhile.
	detail, err := r.Restore(context.WithoutCancel(ctx), f.bump)
	if err != nil {
		record(env, f.name, histories.FEnd, fmt.Sprintf("the restore failed: %v", err))
		env.Fail(fmt.Errorf("%s fault: restore the issuer from its snapshot: %w", f.name, err))
		return
	}
	took := time.Duration(env.Runtime().Now() - began)
	record(env, f.name, histories.FEnd, fmt.Sprintf("%s; it serves again after %v", detail, took.Round(time.Millisecond)))
}

// IssuerRestorer is implemented by the issuer faults that restore the
// issuer from a snapshot: the run's lease service must be a
// lease.Restorer, or the run is refused.
type IssuerRestorer interface {
	IssuerAttacher
	RestoresIssuer()
}

// Restorable reports whether the shared issuer can be restored from a
// snapshot (lease.Restorer).
func (s *SharedIssuer) Restorable() bool {
	_, ok := s.servers.(lease.Restorer)
	return ok
}
