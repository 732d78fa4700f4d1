package verify

import (
	"context"
	"fmt"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/lease"
)

// replicaFailover is grant-after-failover on an issuer with a replica to
// promote (a private redis-server with replicas=1): n grants, then the
// replica falls behind while the primary issues n more tokens, then the
// primary is SIGKILLed and the replica promoted in its place, then n
// grants from it. Every token handed out must be above every earlier one.
// With asynchronous replication the promoted replica hands out again the
// tokens it never received; with grants that wait for the replica, the
// tokens issued while it was behind are refused, and the row says how
// many. The replica falls behind on an event (the primary's n-th token),
// not after a time.
func replicaFailover(ctx context.Context, b *issuerScript, fo lease.FailingOver) Row {
	n := b.o.RestartGrants
	expected := fmt.Sprintf("%d grants, the replica held behind while the primary issues %d tokens, the primary SIGKILLed and the replica promoted, %d more: each token handed out above every earlier one", n, n, n)
	r := b.resource()
	before, err := b.grants(ctx, r, n)
	if err != nil {
		return failed(expected, fmt.Sprintf("grant %d", len(before)+1), err)
	}
	behind, issued := context.WithCancel(ctx)
	defer issued()
	b.mark(histories.FBegin, "the replica's replication held: it receives none of the primary's writes")
	if err := fo.Detach(n, issued); err != nil {
		return failed(expected, fmt.Sprintf("tokens %s; hold the replica behind", spanOf(before)), err)
	}
	// A grant that waits for the replica is refused while it is behind,
	// and asked again until the primary issued n tokens: then it ends.
	var during []uint64
	for i := range n {
		t, err := b.grant(behind, r, i%2)
		if err != nil {
			break
		}
		during = append(during, t)
	}
	var promoted string
	f, err := fo.Failover(ctx, func(f lease.Failover) {
		promoted = fmt.Sprintf("%s was SIGKILLed and %s promoted (%s)", f.Primary, f.Promoted, f.How)
		b.mark(histories.FLeader, promoted)
	})
	if err != nil {
		return failed(expected, fmt.Sprintf("tokens %s, then %s while the replica was behind; fail over", spanOf(before), spanOf(during)), err)
	}
	b.mark(histories.FEnd, promoted+"; "+f.Primary+" back as its replica")
	after, err := b.grants(ctx, r, n)
	lag := fmt.Sprintf("%s while %s was behind", spanOf(during), f.Promoted)
	if f.Refused > 0 {
		lag += fmt.Sprintf(" (%d of the %d tokens the primary issued refused: no replica acknowledged them)", f.Refused, f.Issued)
	}
	if err != nil {
		return failed(expected, fmt.Sprintf("tokens %s, %s; grant %d after %s", spanOf(before), lag, len(after)+1, promoted), err)
	}
	said := fmt.Sprintf("tokens %s, %s, then %s after %s", spanOf(before), lag, spanOf(after), promoted)
	if why := sequence(append(append(before, during...), after...)); why != "" {
		return Row{Expected: expected, Observed: why + ": " + said, Result: Fail}
	}
	return Row{Expected: expected, Observed: said, Result: Pass}
}
