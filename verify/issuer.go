package verify

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/lease"
)

// IssuerOptions configure the token issuer's battery; DefaultIssuerOptions
// gives the defaults.
type IssuerOptions struct {
	// RunID makes the resource names of this battery fresh; empty, the
	// current time in base 36.
	RunID string
	// Grants is how many successive grants successive-grants makes.
	Grants int
	// Contenders is how many workers contend for one resource in
	// contended-grants, each taking it Rounds times.
	Contenders, Rounds int
	// RestartGrants is how many grants grant-after-restart takes before
	// and after the crash, and grant-after-failover before, during and
	// after the outage.
	RestartGrants int
	// TTL is the TTL of the issuer's leases: grant-after-ttl waits at most
	// ten of them, and 30 s more, for the lease to run out.
	TTL time.Duration
	// Recorder receives the issuer's lease events and the battery's
	// marks; nil records nothing. It must be the recorder the issuer's
	// service records to.
	Recorder *histories.Recorder
	_        struct{}
}

// DefaultIssuerOptions: 50 successive grants, 4 workers contending 5
// times each, 5 grants on each side of a crash, leases of 2 s (etcd's
// shortest with its default election timeout).
func DefaultIssuerOptions() IssuerOptions {
	return IssuerOptions{Grants: 50, Contenders: 4, Rounds: 5, RestartGrants: 5, TTL: 2 * time.Second}
}

// issuerScenario is one named timeline against a token issuer.
type issuerScenario struct {
	name   string
	hazard string
	run    func(ctx context.Context, b *issuerScript) Row
}

// issuerScenarios is the issuer's battery, in the order the table shows
// it.
var issuerScenarios = []issuerScenario{
	successiveGrants,
	grantsAcrossResources,
	contendedGrants,
	grantAfterRevoke,
	grantAfterTTL,
	grantAfterRestart,
	grantAfterFailover,
	grantAfterPromotion, // before token-boundaries, which may take a sequence to its end
	tokenBoundaries,
	sequenceAfterParentReset,
	clockJump,
	grantAfterRestore,
	grantAfterRestoreBumped,
}

// IssuerNames lists the issuer battery's scenarios.
func IssuerNames() []string {
	names := make([]string, len(issuerScenarios))
	for i, sc := range issuerScenarios {
		names[i] = sc.name
	}
	return names
}

// RunIssuer plays the token issuer's battery against svc, the lease
// service of the issuer under test, one scenario after the other: it
// judges the issuer's own invariant (per resource, every grant's token is
// strictly greater than every earlier grant's, and no token is granted
// twice), which the fencing of every receiver rests on. It fails only on
// bad options; an issuer that cannot grant at all fails its rows. When
// ctx ends during a scenario, its row is not judged and the rest are not
// run (interrupted).
func RunIssuer(ctx context.Context, svc lease.Service, o IssuerOptions) ([]Row, error) {
	if o.Grants < 2 || o.Contenders < 2 || o.Rounds < 1 || o.RestartGrants < 1 {
		return nil, fmt.Errorf("verify: IssuerOptions: Grants %d, Contenders %d, Rounds %d, RestartGrants %d: want at least 2, 2, 1 and 1",
			o.Grants, o.Contenders, o.Rounds, o.RestartGrants)
	}
	if o.RunID == "" {
		o.RunID = fmt.Sprintf("%x", time.Now().UnixMilli())
	}
	var out []Row
	stopped := ""
	for _, sc := range issuerScenarios {
		if stopped != "" {
			out = append(out, notRun(sc.name, sc.hazard, stopped))
			continue
		}
		b := &issuerScript{svc: svc, o: o, scenario: sc.name}
		b.mark(histories.FStart, sc.hazard)
		res := sc.run(ctx, b)
		res.Scenario, res.Hazard = sc.name, sc.hazard
		stopped = interrupted(ctx, &res)
		b.mark(histories.FStop, fmt.Sprintf("%s: observed %s", res.Result, res.Observed))
		out = append(out, res)
	}
	return out, nil
}

// issuerScript runs one issuer scenario.
type issuerScript struct {
	svc      lease.Service
	o        IssuerOptions
	scenario string
	fresh    int
}

// resource returns a resource name no other scenario or battery uses.
func (b *issuerScript) resource() string {
	b.fresh++
	return fmt.Sprintf("verify-issuer-%s-%s-%d", b.o.RunID, b.scenario, b.fresh)
}

// mark records a scenario's start or end (histories.FStart, FStop), or
// one action of its own fault (FBegin, FEnd: a server it crashed, and
// back), as an annotation.
func (b *issuerScript) mark(f, detail string) {
	if b.o.Recorder != nil {
		b.o.Recorder.Record(&histories.Event{Process: -1, Actor: histories.ActorNemesis, F: f, Fault: "verify-issuer:" + b.scenario, Detail: detail})
	}
}

// grant takes the lease on resource for worker and ends it at once (a
// release): the scenario is about the token it carried.
func (b *issuerScript) grant(ctx context.Context, resource string, worker int) (uint64, error) {
	l, err := b.svc.Acquire(ctx, resource, worker)
	if err != nil {
		return 0, err
	}
	b.svc.Release(l)
	return l.Token, nil
}

// sequence judges a resource's grants, in the order they were made: each
// token must be above every earlier one. It returns what is wrong, or ""
// when nothing is.
func sequence(tokens []uint64) string {
	seen := make(map[uint64]int, len(tokens))
	var highest uint64
	for i, t := range tokens {
		if j, ok := seen[t]; ok {
			return fmt.Sprintf("token %d granted twice (grants %d and %d)", t, j+1, i+1)
		}
		seen[t] = i
		if i > 0 && t < highest {
			return fmt.Sprintf("grant %d carries token %d, below %d granted before it", i+1, t, highest)
		}
		highest = max(highest, t)
	}
	return ""
}

// span says which tokens a list runs over: "50 grants, tokens 3 to 152".
func span(tokens []uint64) string {
	if len(tokens) == 0 {
		return "no grant"
	}
	return fmt.Sprintf("%d grants, tokens %d to %d", len(tokens), tokens[0], tokens[len(tokens)-1])
}

// failed is the row of a scenario the issuer could not serve.
func failed(expected, what string, err error) Row {
	return Row{Expected: expected, Observed: fmt.Sprintf("%s: %s", what, short(err)), Result: Fail}
}

// joinBad words a scenario's findings.
func joinBad(bad []string) string { return strings.Join(bad, "; ") }
