package verify

import (
	"context"
	"fmt"

	"github.com/fencecheck/fencecheck/histories"
)

// restartDurability crashes the receiver (SIGKILL) after it accepted token
// 7 and starts it again: it must still hold 7, reject 6 and accept 8. A
// receiver that keeps its highest token only in memory accepts 6. It needs
// a target that can restart its receiver (a Restarter); otherwise it is
// skipped.
var restartDurability = scenario{
	name:   "restart-durability",
	hazard: "the highest token survives a crash and restart of the receiver",
	run: func(ctx context.Context, s *script) Row {
		rs, ok := s.t.(Restarter)
		if !ok {
			return Row{Expected: "7 accepted; after SIGKILL and restart: read \"before\"@7, 6 rejected, 8 accepted",
				Observed: fmt.Sprintf("skipped: needs a receiver process (%s)", s.o.word(RestartableTarget)), Result: Skip}
		}
		r := s.resource()
		toks, done, err := s.owners(ctx, r, 6, 7, 8)
		if err != nil {
			return s.abort(err)
		}
		defer done()
		t6, t7, t8 := toks[0], toks[1], toks[2]
		out := Row{Expected: fmt.Sprintf("%d accepted; after SIGKILL and restart: read \"before\"@%d, %d rejected, %d accepted", t7, t7, t6, t8)}
		w7 := s.write(ctx, r, t7, "before")
		s.mark(histories.FBegin, "SIGKILL to the receiver, then start it again")
		if err := rs.Restart(ctx); err != nil {
			s.mark(histories.FEnd, "the receiver did not come back")
			out.Observed, out.Result = fmt.Sprintf("%d %s; restart failed: %v", t7, w7, err), Fail
			return out
		}
		s.mark(histories.FEnd, "the receiver answers again")
		got := s.read(ctx, r)
		w6 := s.write(ctx, r, t6, "stale")
		w8 := s.write(ctx, r, t8, "after")
		out.Observed = fmt.Sprintf("%d %s; after restart %s, %d %s, %d %s", t7, w7, got, t6, w6, t8, w8)
		out.Result = verdict(w7.is(histories.Accepted) && got.holds("before", t7) && w6.is(histories.Rejected) && w8.is(histories.Accepted))
		return out
	},
}
