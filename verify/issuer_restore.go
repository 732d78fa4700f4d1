package verify

import (
	"context"
	"fmt"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/lease"
)

// grantAfterRestore restores the issuer from a snapshot taken between
// grants, without moving its sequence past them, as an operator who
// forgets etcd's --bump-revision does: the issuer forgets the grants made
// after the snapshot, and grants their tokens again. That is how the
// issuer is documented to behave, not a bug in it, so the row is
// information, saying what the sequence did and what prevents it
// (grant-after-restore-bumped); a sequence that survives passes.
var grantAfterRestore = issuerScenario{
	name:   "grant-after-restore",
	hazard: "the issuer is restored from a snapshot without bumping its sequence (etcdutl without --bump-revision): tokens granted again",
	run: func(ctx context.Context, b *issuerScript) Row {
		return b.restoreScenario(ctx, false)
	},
}

// grantAfterRestoreBumped restores the issuer from a snapshot taken
// between grants with its sequence moved past every grant (etcd's
// --bump-revision with --mark-compacted): every grant after the restore
// must be above every grant before it.
var grantAfterRestoreBumped = issuerScenario{
	name:   "grant-after-restore-bumped",
	hazard: "the issuer is restored from a snapshot with its sequence bumped past every grant (--bump-revision, --mark-compacted): no token granted again",
	run: func(ctx context.Context, b *issuerScript) Row {
		return b.restoreScenario(ctx, true)
	},
}

// restoreScenario takes RestartGrants grants, a snapshot, as many grants
// again, restores the snapshot (bumped or not) and takes as many grants
// again, on one resource.
func (b *issuerScript) restoreScenario(ctx context.Context, bump bool) Row {
	n := b.o.RestartGrants
	how := "without bumping its sequence"
	if bump {
		how = "with its sequence bumped past every grant"
	}
	expected := fmt.Sprintf("%d grants, a snapshot, %d grants, the issuer restored from the snapshot %s, %d more: each token above every earlier one", n, n, how, n)
	r, ok := b.svc.(lease.Restorer)
	if !ok {
		return Row{Expected: expected, Observed: "skipped: fencecheck cannot restore this issuer from a snapshot (only the embedded etcd cluster, --leases etcd, whose members run as processes)", Result: Skip}
	}
	res := b.resource()
	before, err := b.grants(ctx, res, n)
	if err != nil {
		return failed(expected, fmt.Sprintf("grant %d", len(before)+1), err)
	}
	at, err := r.Snapshot(ctx)
	if err != nil {
		return failed(expected, fmt.Sprintf("tokens %s; snapshot", spanOf(before)), err)
	}
	b.mark(histories.FBegin, fmt.Sprintf("snapshot of the issuer, its sequence at %d", at))
	between, err := b.grants(ctx, res, n)
	if err != nil {
		return failed(expected, fmt.Sprintf("tokens %s, a snapshot at %d; grant %d after it", spanOf(before), at, len(between)+1), err)
	}
	b.mark(histories.FRestore, "every server stopped and restored from the snapshot, "+how)
	detail, err := r.Restore(ctx, bump)
	if err != nil {
		return failed(expected, fmt.Sprintf("tokens %s, a snapshot at %d, tokens %s; restore", spanOf(before), at, spanOf(between)), err)
	}
	b.mark(histories.FEnd, detail)
	after, err := b.grants(ctx, res, n)
	said := fmt.Sprintf("tokens %s, a snapshot at %d, tokens %s, then %s after the restore (%s)", spanOf(before), at, spanOf(between), spanOf(after), detail)
	if err != nil {
		return failed(expected, fmt.Sprintf("tokens %s, a snapshot at %d, tokens %s, the restore (%s); grant %d after it", spanOf(before), at, spanOf(between), detail, len(after)+1), err)
	}
	why := sequence(append(append(before, between...), after...))
	switch {
	case why == "":
		return Row{Expected: expected, Observed: said, Result: Pass}
	case bump:
		return Row{Expected: expected, Observed: why + ": " + said, Result: Fail}
	}
	// Short enough for the table: the restore's own words are in the
	// history (the scenario's restore mark).
	return Row{Expected: expected, Result: Info, Observed: fmt.Sprintf("%s: tokens %s, a snapshot at %d, %s, then %s after a restore without a bump, as etcd documents; --bump-revision with --mark-compacted prevents it",
		why, spanOf(before), at, spanOf(between), spanOf(after))}
}
