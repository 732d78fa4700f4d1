package replay

import (
	"fmt"

	"github.com/fencecheck/fencecheck/histories"
)

// The events of the article's table, in order.
var stepEvents = [...]string{
	1: "A receives token 41 and reads its input",
	2: "A pauses; its lease expires",
	3: "B receives token 42 and writes a new result",
	4: "A resumes and submits its old result with 41",
	5: "B submits the same result again with 42",
}

// compare builds the article's table from what the two receivers actually
// answered at each step.
func compare(unfenced, fenced *run) []Row {
	rows := make([]Row, 0, 5)
	for step := 1; step <= 5; step++ {
		u, f := unfenced.outcomes[step], fenced.outcomes[step]
		rows = append(rows, Row{
			Step:           step,
			Event:          stepEvents[step],
			WithoutFencing: consequence(step, u, false),
			WithFencing:    consequence(step, f, true),
		})
	}
	return rows
}

// consequence describes, in the article's words, what the receiver's answer at
// a step did to the resource.
func consequence(step int, out histories.Outcome, fenced bool) string {
	switch step {
	case 1:
		return "No result has been written"
	case 2:
		return "Expiry alone does not modify the resource"
	}
	var token uint64 = NewToken
	if step == 4 {
		token = OldToken
	}
	switch {
	case out == histories.Rejected && step == 4:
		return fmt.Sprintf("Resource rejects %d because %d was already accepted", OldToken, NewToken)
	case out == histories.Rejected:
		return fmt.Sprintf("Resource rejects %d", token)
	case step == 3 && fenced:
		return fmt.Sprintf("Resource accepts %d and records it", NewToken)
	case step == 3:
		return "Resource stores the new result; no token is checked"
	case step == 4:
		return "Resource accepts 41: the old result replaces the new one"
	case fenced:
		return "Token check accepts it; duplicate suppression is a separate concern"
	default:
		return "Resource accepts it; nothing is checked"
	}
}
