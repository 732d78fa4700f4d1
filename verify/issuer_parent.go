package verify

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/lease"
)

// parentGrants is how many grants sequenceAfterParentReset takes on each
// side of the reset.
const parentGrants = 3

// sequenceAfterParentReset deletes and creates again the lock parent of
// an issuer whose locks are sequential nodes (ZooKeeper's) between
// grants: the sequence numbers start again, and the tokens must not.
// Its observation shows both, so that a reader sees why the tokens are
// not the sequence numbers.
var sequenceAfterParentReset = issuerScenario{
	name:   "sequence-after-parent-reset",
	hazard: "the lock parent is deleted and created again between grants: its sequence numbers start again; no token granted again",
	run: func(ctx context.Context, b *issuerScript) Row {
		expected := fmt.Sprintf("%d grants, the lock parent deleted and created again, %d more: each token above every earlier one", parentGrants, parentGrants)
		p, ok := b.svc.(lease.LockParent)
		if !ok {
			return Row{Expected: expected, Observed: "skipped: the issuer's locks are not sequential nodes under a parent (only ZooKeeper's are)", Result: Skip}
		}
		r := b.resource()
		grants := func(tokens []uint64, seqs []string) ([]uint64, []string, error) {
			for range parentGrants {
				l, err := b.svc.Acquire(ctx, r, 0)
				if err != nil {
					return tokens, seqs, err
				}
				seq, ok := p.Sequence(r, l.Token)
				b.svc.Release(l)
				tokens = append(tokens, l.Token)
				if ok {
					seqs = append(seqs, fmt.Sprint(seq))
				} else {
					seqs = append(seqs, "?")
				}
			}
			return tokens, seqs, nil
		}
		before, seqBefore, err := grants(nil, nil)
		if err != nil {
			return failed(expected, fmt.Sprintf("grant %d", len(before)+1), err)
		}
		b.mark(histories.FBegin, "delete the lock parent of "+r+" and create it again")
		if err := p.RecreateParent(ctx, r); err != nil {
			return failed(expected, "tokens "+spanOf(before)+"; recreate the lock parent", err)
		}
		b.mark(histories.FEnd, "the lock parent of "+r+" was created again")
		after, seqAfter, err := grants(nil, nil)
		if err != nil {
			return failed(expected, fmt.Sprintf("tokens %s, then the lock parent recreated; grant %d after it", spanOf(before), len(after)+1), err)
		}
		restarted := "did not start again"
		if first, last := seqAfter[0], seqBefore[len(seqBefore)-1]; first != "?" && last != "?" && atoi(first) <= atoi(last) {
			restarted = "started again"
		}
		said := fmt.Sprintf("sequence numbers %s, then %s after the parent was recreated (%s: tokens taken from them would go back); tokens %s, then %s",
			strings.Join(seqBefore, ", "), strings.Join(seqAfter, ", "), restarted, spanOf(before), spanOf(after))
		if why := sequence(append(before, after...)); why != "" {
			return Row{Expected: expected, Observed: why + ": " + said, Result: Fail}
		}
		return Row{Expected: expected, Observed: said, Result: Pass}
	},
}

// atoi reads a sequence number this scenario wrote.
func atoi(s string) int64 {
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}
