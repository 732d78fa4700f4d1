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
		out := Row{Expected: "7 accepted; after SIGKILL and restart: read \"before\"@7, 6 rejected, 8 accepted"}
		rs, ok := s.t.(Restarter)
		if !ok {
			out.Observed, out.Result = fmt.Sprintf("skipped: needs a receiver process (%s)", s.o.word(RestartableTarget)), Skip
			return out
		}
		r := s.resource()
		w7 := s.write(ctx, r, 7, "before")
		s.mark(histories.FBegin, "SIGKILL to the receiver, then start it again")
		if err := rs.Restart(ctx); err != nil {
			s.mark(histories.FEnd, "the receiver did not come back")
			out.Observed, out.Result = fmt.Sprintf("7 %s; restart failed: %v", w7, err), Fail
			return out
		}
		s.mark(histories.FEnd, "the receiver answers again")
		got := s.read(ctx, r)
		w6 := s.write(ctx, r, 6, "stale")
		w8 := s.write(ctx, r, 8, "after")
		out.Observed = fmt.Sprintf("7 %s; after restart %s, 6 %s, 8 %s", w7, got, w6, w8)
		out.Result = verdict(w7.is(histories.Accepted) && got.holds("before", 7) && w6.is(histories.Rejected) && w8.is(histories.Accepted))
		return out
	},
}
