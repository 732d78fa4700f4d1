package nemesis

import (
	"context"

	"github.com/fencecheck/fencecheck/lease"
)

// IssuerKill crashes one server of the token issuer with SIGKILL, keeps it
// down a while and starts it again on its data: for an embedded etcd
// cluster, a member killed while workers hold and renew leases, and, when
// it is the leader, the failover the issuer's tokens must survive (every
// grant after it above every grant before). One server is down at a time,
// so that a three-member cluster keeps its quorum. The first kill of a
// run hits the leader (see issuerFault); each outage is recorded as
// events naming the server and the leader before and after ("SIGKILL to
// etcd member m1 (the leader)", "the leader is now etcd member m2 (was
// etcd member m1)", "etcd member m1 rejoined and serves after 1.2s; the
// leader is etcd member m2").
type IssuerKill struct{ issuerFault }

// NewIssuerKill returns the issuer-kill fault; the harness attaches the
// run's issuer servers to it.
func NewIssuerKill() *IssuerKill {
	return &IssuerKill{newIssuerFault("issuer-kill", outage{
		signal: "SIGKILL",
		down:   func(s lease.Servers, i int) error { return s.Kill(i) },
		up:     func(ctx context.Context, s lease.Servers, i int) error { return s.Start(ctx, i) },
		back:   "rejoined and serves", upCall: "start again",
	})}
}
