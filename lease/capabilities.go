package lease

import (
	"context"
	"errors"
	"time"
)

// ErrNotHeld is what Renew returns for a lease that is no longer current:
// it ran out, was released or was ended early, and may already belong to
// another worker.
var ErrNotHeld = errors.New("lease: not held")

// Renewer is a Service whose holders can extend their leases: the
// client strategy that renews while it works (workload.Renew) needs one.
// Renew starts the lease's TTL again from now on the issuer, and records
// a renew event; it fails with ErrNotHeld (wrapped) when the lease is no
// longer current. A renewal cannot bring back a lease that has ended: the
// issuer may have granted it again.
type Renewer interface {
	Renew(ctx context.Context, l Lease) error
}

// HolderChecker is a Service that can say whether a lease is still
// current, as the issuer sees it at the moment it answers: the client
// strategy that checks before it writes (workload.CheckBeforeWrite) needs
// one. The answer is out of date as soon as it is given: the lease can
// end, and be granted again, while the answer travels back and the holder
// goes on to write. That is the point the strategy exists to show.
type HolderChecker interface {
	Held(ctx context.Context, l Lease) (bool, error)
}

// Suspender is a Service that can let one lease run out on the issuer,
// as it does when its holder pauses: the keepalive that renews an etcd
// lease runs beside the worker and stops with it; a Redis or PostgreSQL
// lease (Polled) has none and runs out by its TTL. Suspend stops renewing
// the lease on resource that carries token, if it is still current, and
// calls ended once its end is recorded (its TTL ran out on the issuer, or
// anything else ended it); within is how long that may take on an issuer
// that works, and ok is false when the lease is no longer current.
//
// The harness calls it for the faults that hold a worker past its lease
// (nemesis.Env.LapseLease), and verify-issuer's grant-after-ttl scenario
// to let a holder's lease run out. A service without it has its paused
// holders' leases ended at once (ExpireToken): Local is none, so that its
// deterministic runs keep their histories.
type Suspender interface {
	Suspend(resource string, token uint64, ended func()) (within time.Duration, ok bool)
}

// Floored is a Service that can make a resource's tokens start above a
// given one: StartAbove(resource, token) makes every later grant on
// resource carry a token above token (Local, Polled, and etcd within a
// gap it can close).
//
// The harness calls it when a resource already holds a value with a
// token before the run (a receiver tested twice), so that the run's
// owners are newer than what the receiver keeps; verify-issuer's
// token-boundaries scenario starts tokens just below 2^31, 2^32, 2^53
// and 2^63-1 with it. A service without it issues what it issues: a
// run's writes below what the receiver holds are then stale, and
// rejecting them is correct; the scenario is skipped.
type Floored interface {
	StartAbove(resource string, token uint64)
}

// Servers is a Service whose issuer runs as servers fencecheck started
// itself: the members of an embedded etcd cluster in processes of their
// own (lease/etcd/embedded), a private redis-server or PostgreSQL cluster
// (lease/private). Servers are numbered by their place in Servers(), and
// the other methods take that number. Each action fails when the server
// exited on its own: there is nothing left to act on.
//
// The issuer faults (nemesis.IssuerKill, nemesis.IssuerPause) crash and
// freeze them during a run, and verify-issuer's grant-after-restart and
// grant-after-failover scenarios crash them between grants. A service
// without it cannot be taken down by fencecheck: a run with an issuer
// fault is refused, and those scenarios are skipped.
type Servers interface {
	// Servers names the servers as events name them ("etcd member m1").
	Servers() []string
	// Leader is the number of the server that leads now, -1 when none
	// answers as the leader (or the issuer has no leader at all: then
	// every server counts as a follower).
	Leader(ctx context.Context) int
	// Kill crashes server i (SIGKILL) and waits until it is gone.
	Kill(i int) error
	// Start starts server i again, on its data, and waits until it
	// serves (it rejoined the cluster).
	Start(ctx context.Context, i int) error
	// Freeze stops server i (SIGSTOP); Thaw resumes it (SIGCONT).
	Freeze(i int) error
	Thaw(i int) error
}

// ServerIssuer is an Issuer that can say, before it is opened, whether
// the Service it opens will have Servers: an embedded etcd cluster whose
// members run as processes (embedded.Options.Command), a private
// redis-server or PostgreSQL cluster. harness.Config.Validate asks it, so
// that a run with an issuer fault is refused before it starts anything;
// an Issuer without it is asked once it is open, and the run fails then.
type ServerIssuer interface {
	Issuer
	HasServers() bool
}

// FailingOver is a Service whose issuer has a replica it can fail over
// to: a private Redis with a replica, a private PostgreSQL cluster with a
// streaming standby. Failover crashes the primary (SIGKILL), promotes
// the replica in its place and moves the service to it, and says what it
// did (which servers, what the replica had received). Grants the primary
// acknowledged that had not reached the replica are lost with it: with
// asynchronous replication the tokens after the failover can repeat
// earlier ones. It fails when there is no replica left to promote.
type FailingOver interface {
	Failover(ctx context.Context) (string, error)
}

// ReplicaHolder is a FailingOver service that can make its replica fall
// behind before a failover, as a replica does under load or across a
// slow network: HoldReplica stops what streams the primary's writes to
// the replica (for PostgreSQL, a SIGSTOP to the primary's walsender)
// until the primary is killed, and says what it stopped and where the
// replica had got to. An asynchronous primary goes on acknowledging
// grants meanwhile; a synchronous one acknowledges none.
type ReplicaHolder interface {
	HoldReplica(ctx context.Context) (string, error)
}

// ClockJumper is a Service whose issuer's wall clock fencecheck can move:
// a private redis-server started under libfaketime (lease/redis).
// JumpClock moves the server's clock forward by d at once, as an NTP step
// or an operator's `date -s` would, and returns once the server's clock
// reads the jump. An issuer whose leases are timeouts on its own clock
// then ends every lease it granted that had less than d to run, while
// their holders still believe they hold them: two holders of one lease.
// Its monotonic clock does not move. The issuer-clock fault
// (nemesis.IssuerClock) and verify-issuer's clock-jump scenario need one;
// without it they are refused or skipped.
type ClockJumper interface {
	JumpClock(ctx context.Context, d time.Duration) error
}

// ClockIssuer is an Issuer that can say, before it is opened, whether the
// Service it opens with Env.ClockJumps will be a ClockJumper, and what it
// lacks if not (libfaketime not installed): nil when it will.
type ClockIssuer interface {
	Issuer
	ClockJumps() error
}

// IssueCounter is a ReplicaHolder that counts the tokens its primary
// issues while the replica is held behind, handed out or refused (a
// grant that waits for the replica and is refused without it): a private
// redis-server with a replica (redis?replicas=1). The issuer-failover
// fault (nemesis.IssuerFailover) fails over on that event, never after a
// time.
type IssueCounter interface {
	// AfterIssued calls fn once the primary has issued n tokens since
	// the replica was held (at once if it has already).
	AfterIssued(n int, fn func())
}

// Restorer is a Service whose issuer's whole state can be saved to a
// snapshot and restored from it, as an operator restores an issuer from
// a backup: the embedded etcd cluster (etcdutl's snapshot save and
// restore). It is what rewinds a sequence that survives every crash and
// failover: after a restore the issuer knows nothing granted since the
// snapshot, and grants those tokens again unless the restore moves its
// sequence past them (etcd's --bump-revision).
//
// The faults issuer-restore and issuer-restore-bumped (nemesis.IssuerRestore)
// take a snapshot during a run and restore it later, and verify-issuer's
// grant-after-restore scenarios between grants. A service without it
// cannot be restored by fencecheck: a run with those faults is refused,
// and the scenarios are skipped.
type Restorer interface {
	// Snapshot saves the issuer's state now, replacing an earlier
	// snapshot, and returns the token sequence's position in it: every
	// token granted after the snapshot is above at.
	Snapshot(ctx context.Context) (at uint64, err error)
	// Restore stops every server, restores the last snapshot on each and
	// starts them again, waiting until they serve; with bump, the
	// sequence is moved past every token granted before the restore. It
	// says what became of the sequence ("its revision went back from 812
	// to 530").
	Restore(ctx context.Context, bump bool) (string, error)
}
