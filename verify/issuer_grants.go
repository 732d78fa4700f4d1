package verify

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/fencecheck/fencecheck/lease"
)

// successiveGrants takes one resource's lease again and again, by
// alternating workers, each releasing it before the next takes it: the
// plain sequence every fencing token comes from.
var successiveGrants = issuerScenario{
	name:   "successive-grants",
	hazard: "successive holders of one resource: each token above the last",
	run: func(ctx context.Context, b *issuerScript) Row {
		expected := fmt.Sprintf("%d grants on one resource, each token above every earlier one", b.o.Grants)
		r := b.resource()
		var tokens []uint64
		for i := range b.o.Grants {
			t, err := b.grant(ctx, r, i%2)
			if err != nil {
				return failed(expected, fmt.Sprintf("grant %d", i+1), err)
			}
			tokens = append(tokens, t)
		}
		return judged(expected, tokens, "")
	},
}

// grantsAcrossResources interleaves grants on three resources: each
// resource's sequence must increase on its own, whether the issuer keeps
// one sequence per resource (a Redis counter) or one for all (etcd's
// revision, a database sequence).
var grantsAcrossResources = issuerScenario{
	name:   "grants-across-resources",
	hazard: "grants on several resources, interleaved: each resource's tokens increase",
	run: func(ctx context.Context, b *issuerScript) Row {
		expected := "3 resources, 10 grants each, interleaved: each resource's tokens increase"
		rs := []string{b.resource(), b.resource(), b.resource()}
		tokens := make([][]uint64, len(rs))
		for i := range 10 * len(rs) {
			t, err := b.grant(ctx, rs[i%len(rs)], i%2)
			if err != nil {
				return failed(expected, fmt.Sprintf("grant %d", i+1), err)
			}
			tokens[i%len(rs)] = append(tokens[i%len(rs)], t)
		}
		var bad, seen []string
		for i, ts := range tokens {
			if why := sequence(ts); why != "" {
				bad = append(bad, fmt.Sprintf("resource %d: %s", i+1, why))
			}
			seen = append(seen, fmt.Sprintf("%d–%d", ts[0], ts[len(ts)-1]))
		}
		if len(bad) > 0 {
			return Row{Expected: expected, Observed: joinBad(bad), Result: Fail}
		}
		return Row{Expected: expected, Observed: "tokens " + joinBad(seen) + ", each increasing", Result: Pass}
	},
}

// contendedGrants has several workers ask for one resource at once, over
// and over: the issuer decides who holds it, and every grant's token must
// still be above every earlier grant's, with none granted twice.
var contendedGrants = issuerScenario{
	name:   "contended-grants",
	hazard: "workers contending for one resource: no token granted twice, each above the last",
	run: func(ctx context.Context, b *issuerScript) Row {
		expected := fmt.Sprintf("%d workers take one resource %d times each: %d grants, each above every earlier one",
			b.o.Contenders, b.o.Rounds, b.o.Contenders*b.o.Rounds)
		r := b.resource()
		var mu sync.Mutex
		var grants []timedGrant // in the order the calls returned
		var firstErr error
		var wg sync.WaitGroup
		for w := range b.o.Contenders {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range b.o.Rounds {
					asked := time.Now()
					l, err := b.svc.Acquire(ctx, r, w)
					if err != nil {
						mu.Lock()
						firstErr = err
						mu.Unlock()
						return
					}
					mu.Lock()
					grants = append(grants, timedGrant{token: l.Token, asked: asked, returned: time.Now()})
					mu.Unlock()
					b.svc.Release(l)
				}
			}()
		}
		wg.Wait()
		if firstErr != nil {
			return failed(expected, fmt.Sprintf("after %d grants", len(grants)), firstErr)
		}
		if why := realTimeOrder(grants); why != "" {
			return Row{Expected: expected, Observed: why, Result: Fail}
		}
		return Row{Expected: expected, Observed: contendedSpan(grants), Result: Pass}
	},
}

// timedGrant is one grant of contended-grants: its token, when it was
// asked for and when the grant returned.
type timedGrant struct {
	token           uint64
	asked, returned time.Time
}

// realTimeOrder judges contended grants by the only order a client can
// see: a grant asked for after another had returned must carry a higher
// token, and no token may be granted twice. The order in which the calls
// returned is not the order of the grants: a holder whose lease ran out
// (its TTL, on the issuer's clock) before its call returned, as on a
// loaded machine, is followed by a newer holder whose call may return
// first. Judging that order blamed a correct issuer.
func realTimeOrder(grants []timedGrant) string {
	seen := make(map[uint64]int, len(grants))
	for i, g := range grants {
		if j, ok := seen[g.token]; ok {
			return fmt.Sprintf("token %d granted twice (grants %d and %d)", g.token, j+1, i+1)
		}
		seen[g.token] = i
	}
	for i, a := range grants {
		for j, c := range grants {
			if c.asked.After(a.returned) && c.token < a.token {
				return fmt.Sprintf("grant %d carries token %d, below %d granted before it was asked for (grant %d)", j+1, c.token, a.token, i+1)
			}
		}
	}
	return ""
}

// contendedSpan says which tokens contended grants ran over, lowest to
// highest: the calls may return out of the issuer's order.
func contendedSpan(grants []timedGrant) string {
	if len(grants) == 0 {
		return "no grant"
	}
	lo, hi := grants[0].token, grants[0].token
	for _, g := range grants {
		lo, hi = min(lo, g.token), max(hi, g.token)
	}
	return fmt.Sprintf("%d grants, tokens %d to %d, each above every grant that returned before it was asked for", len(grants), lo, hi)
}

// grantAfterRevoke ends the holder's lease early (as a scheduler that
// reassigns the job does: a revoke on etcd, a compare-and-delete on Redis
// and PostgreSQL) and lets a waiting worker take it.
var grantAfterRevoke = issuerScenario{
	name:   "grant-after-revoke",
	hazard: "a lease revoked while its holder still runs: the next holder's token is higher",
	run: func(ctx context.Context, b *issuerScript) Row {
		return handedOver(ctx, b, "was revoked", func(r string, token uint64) { b.svc.ExpireToken(r, token) })
	},
}

// grantAfterTTL lets the holder's lease run out by its TTL, on the
// issuer's clock: the holder never releases it (and, on an issuer that
// renews on its own, stops renewing, as a paused holder does), and the
// waiting worker is granted the resource when the issuer says the lease
// is over.
var grantAfterTTL = issuerScenario{
	name:   "grant-after-ttl",
	hazard: "a lease that runs out by its TTL (its holder paused): the next holder's token is higher",
	run: func(ctx context.Context, b *issuerScript) Row {
		return handedOver(ctx, b, "ran out by its TTL", func(r string, token uint64) {
			if s, ok := b.svc.(lease.Suspender); ok {
				s.Suspend(r, token, func() {})
			}
		})
	},
}

// handedOver has worker 0 take a resource, end ends its lease (or lets
// it run out), and worker 1, asking meanwhile, takes it over.
func handedOver(ctx context.Context, b *issuerScript, how string, end func(resource string, token uint64)) Row {
	expected := fmt.Sprintf("worker 1 granted the resource after worker 0's lease %s, with a higher token", how)
	r := b.resource()
	first, err := b.svc.Acquire(ctx, r, 0)
	if err != nil {
		return failed(expected, "first grant", err)
	}
	// Bounded, so that a lease that never ends fails the row instead of
	// hanging the battery; the bound is not what the scenario waits for.
	wait, cancel := context.WithTimeout(ctx, 10*b.o.TTL+30*time.Second)
	defer cancel()
	next := make(chan error, 1)
	var second uint64
	go func() {
		l, err := b.svc.Acquire(wait, r, 1)
		second = l.Token
		if err == nil {
			b.svc.Release(l)
		}
		next <- err
	}()
	end(r, first.Token)
	if err := <-next; err != nil {
		b.svc.Release(first)
		return failed(expected, fmt.Sprintf("token %d held; the next grant", first.Token), err)
	}
	return judged(expected, []uint64{first.Token, second}, fmt.Sprintf("token %d, then %d after the lease %s", first.Token, second, how))
}

// judged is the row of a scenario whose grants are tokens: pass when they
// increase, observed as span (or as said, when said is not empty).
func judged(expected string, tokens []uint64, said string) Row {
	if why := sequence(tokens); why != "" {
		return Row{Expected: expected, Observed: why, Result: Fail}
	}
	if said == "" {
		said = span(tokens) + ", each above the last"
	}
	return Row{Expected: expected, Observed: said, Result: Pass}
}
