package verify

// rootCauses are the scenarios whose failure may explain the failures of
// others, and which rows each may explain: a receiver that ignores the
// resource name fails most of the battery for that one reason, and its
// scope row is what to fix first.
var rootCauses = []struct {
	scenario string
	// explains says whether the failed row at position i of the table
	// may follow from the root cause's failed row at position root.
	explains func(root, i int) bool
}{
	// A receiver that does not keep resources apart mixes every
	// scenario's fresh resources with every other's, played before
	// scope or after it.
	{scope.name, func(root, i int) bool { return true }},
	// The scenarios after restart-durability play against the receiver
	// it crashed and restarted, which may have come back without the
	// state it had, or otherwise changed.
	{restartDurability.name, func(root, i int) bool { return i > root }},
}

// markRootCauses marks each failed row that may follow from a failed
// root-cause row (Row.FollowsFrom). A root cause is never marked as
// following from another: each is a fault to fix of its own. Nor is a
// row during which the receiver went away (survive), which failed for
// that, or the receiver's log, which is evidence of its own.
func markRootCauses(rows []Row) {
	at := map[string]int{}
	for i, r := range rows {
		at[r.Scenario] = i
	}
	isRoot := map[string]bool{}
	for _, rc := range rootCauses {
		isRoot[rc.scenario] = true
	}
	for _, rc := range rootCauses {
		root, ok := at[rc.scenario]
		if !ok || rows[root].Result != Fail || rows[root].exited {
			continue
		}
		for i := range rows {
			r := &rows[i]
			if r.Result == Fail && !isRoot[r.Scenario] && !r.exited && r.Scenario != ReceiverLog && rc.explains(root, i) {
				r.FollowsFrom = append(r.FollowsFrom, rc.scenario)
			}
		}
	}
}
