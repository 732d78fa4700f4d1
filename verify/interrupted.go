package verify

import (
	"context"
	"fmt"
)

// interrupted says why the battery cannot go on ("" when it can) once a
// scenario has played, and makes the scenario's row one not judged when
// ctx ended during it. An operation the context cancelled comes back
// unanswered or failed, and a restart it cut short leaves the receiver
// down: the row would then read as the receiver's failure (or, where a
// scenario passes on an absence, as its pass) when it is the caller's
// deadline. A failure the scenario saw before the deadline is not kept
// either: the row cannot tell which of its answers the deadline made.
// The scenarios after are not run.
func interrupted(ctx context.Context, row *Row) (stopped string) {
	if ctx.Err() == nil {
		return ""
	}
	cause := context.Cause(ctx)
	row.Observed = fmt.Sprintf("not judged: the battery's time ended during it (%v); it had seen: %s", cause, row.Observed)
	row.Result, row.NotRun, row.FollowsFrom = Skip, true, nil
	return fmt.Sprintf("the battery's time ended during %s (%v)", row.Scenario, cause)
}

// notRunPrefix begins the Observed of a scenario not played: the reason
// the battery stopped follows it.
const notRunPrefix = "not run: "

// notRun is the row of a scenario the battery did not play, since it
// stopped for the reason stopped.
func notRun(name, hazard, stopped string) Row {
	return Row{Scenario: name, Hazard: hazard, Observed: notRunPrefix + stopped, Result: Skip, NotRun: true}
}
