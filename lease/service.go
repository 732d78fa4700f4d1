// Package lease issues ownership: leases on resources, each with the
// fencing token its holder must carry on every write. A lease ends when
// its TTL passes, when its holder releases it, or when the nemesis ends it
// early; ending it does not tell the holder, just as a real scheduler's
// expiry does not: that is the whole problem fencing solves.
//
//	worker ──Acquire(resource)──> Service ──Lease{token}──> worker ──write(token)──> target
package lease

import "context"

// Lease is one grant of ownership of a resource, with the fencing token
// that the holder must carry on every write.
type Lease struct {
	Resource string
	Token    uint64
	Worker   int
}

// Service issues leases and their tokens. The harness's own
// implementation keeps them in memory; a real issuer (a database sequence,
// etcd) can replace it, as long as tokens per resource only grow.
type Service interface {
	// Acquire blocks until worker holds the lease on resource, or ctx is
	// done.
	Acquire(ctx context.Context, resource string, worker int) (Lease, error)
	// Release gives the lease back, if it is still current.
	Release(l Lease)
	// Expire ends the current lease on resource early and reports whether
	// there was one.
	Expire(resource string) bool
	// ExpireToken ends the lease on resource that carries token, if it
	// is still the current one, and reports whether it was.
	ExpireToken(resource string, token uint64) bool
}
