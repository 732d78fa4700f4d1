package verify

import (
	"context"
	"fmt"
	"time"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/lease"
)

// heldGrants is how many grants grant-after-promotion asks for while the
// replica is held behind: more than a PostgreSQL sequence logs ahead (32
// values), so that an asynchronous primary acknowledges tokens past the
// last sequence record its standby received.
const heldGrants = 40

// grantAfterPromotion fails an issuer over to its replica (a PostgreSQL
// standby, a Redis replica): grants, the replica held behind where the
// issuer can hold it while more grants are asked, the primary SIGKILLed
// and the replica promoted, then grants from it. Every grant the issuer
// acknowledged must carry a token above every earlier one: an
// asynchronous replica that had not received the last grants hands their
// tokens out again. A synchronous one acknowledges nothing while it is
// held: the grants asked then are refused or time out, which is no
// failure (the scenario says so), and is what the setting costs; each
// grant asked while the replica is held gets at least a second (the
// lease's TTL when longer), and the first one not acknowledged ends them.
var grantAfterPromotion = issuerScenario{
	name:   "grant-after-promotion",
	hazard: "the issuer's primary crashes and its replica is promoted in its place: no acknowledged token granted again",
	run: func(ctx context.Context, b *issuerScript) Row {
		n := b.o.RestartGrants
		expected := fmt.Sprintf("%d grants, the replica held behind while %d more are asked, the primary SIGKILLed and the replica promoted, %d more: each acknowledged token above every earlier one", n, heldGrants, n)
		f, ok := b.svc.(lease.FailingOver)
		if !ok {
			return Row{Expected: expected, Observed: "skipped: the issuer has no replica of its own to promote (only a private one started with a standby or replica: postgres?standby=async|sync, redis?replicas=1)", Result: Skip}
		}
		r := b.resource()
		before, err := b.grants(ctx, r, n)
		if err != nil {
			return failed(expected, fmt.Sprintf("grant %d", len(before)+1), err)
		}
		var held []uint64
		heldSaid := "the issuer cannot hold its replica behind: failed over as it streams"
		if h, ok := b.svc.(lease.ReplicaHolder); ok {
			said, err := h.HoldReplica(ctx)
			if err != nil {
				return failed(expected, fmt.Sprintf("tokens %s; hold the replica behind", spanOf(before)), err)
			}
			b.mark(histories.FBegin, said)
			wait := max(b.o.TTL, time.Second)
			for range heldGrants {
				one, cancel := context.WithTimeout(ctx, wait)
				t, err := b.grant(one, r, len(held)%2)
				cancel()
				if err != nil {
					heldSaid = fmt.Sprintf("%s acknowledged while the replica was held, then grant %d not within %v (%s)", spanOf(held), len(held)+1, wait, short(err))
					break
				}
				held = append(held, t)
				heldSaid = fmt.Sprintf("%s while the replica was held", spanOf(held))
			}
		}
		said, err := f.Failover(ctx)
		if err != nil {
			return failed(expected, fmt.Sprintf("tokens %s, %s; fail over", spanOf(before), heldSaid), err)
		}
		b.mark(histories.FEnd, said)
		after, err := b.grants(ctx, r, n)
		if err != nil {
			return failed(expected, fmt.Sprintf("tokens %s, %s; failed over (%s); grant %d after it", spanOf(before), heldSaid, said, len(after)+1), err)
		}
		observed := fmt.Sprintf("tokens %s, %s, then %s after the failover (%s)", spanOf(before), heldSaid, spanOf(after), said)
		if why := sequence(append(append(before, held...), after...)); why != "" {
			return Row{Expected: expected, Observed: why + ": " + observed, Result: Fail}
		}
		return Row{Expected: expected, Observed: observed, Result: Pass}
	},
}
