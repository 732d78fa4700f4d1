package nemesis

import (
	"context"

	"github.com/fencecheck/fencecheck/lease"
)

// IssuerPause freezes one server of the token issuer with SIGSTOP for a
// while and resumes it with SIGCONT: the process pause, on the issuer's
// side. A frozen etcd leader keeps its state and connections but answers
// nothing; the other members elect a new leader, and the frozen one steps
// down once it resumes and hears of it. A frozen leader stays frozen until
// another server leads (bounded), then a random while longer. One server
// is down (frozen or killed) at a time; the first pause of a run hits the
// leader (see issuerFault).
type IssuerPause struct{ issuerFault }

// NewIssuerPause returns the issuer-pause fault; the harness attaches the
// run's issuer servers to it.
func NewIssuerPause() *IssuerPause {
	return &IssuerPause{newIssuerFault("issuer-pause", outage{
		signal: "SIGSTOP",
		down:   func(s lease.Servers, i int) error { return s.Freeze(i) },
		up:     func(_ context.Context, s lease.Servers, i int) error { return s.Thaw(i) },
		back:   "resumed (SIGCONT)", upCall: "resume",
	})}
}
