package verify

import (
	"github.com/fencecheck/fencecheck/logscan"
)

// ReceiverLog is the name of the row of a receiver's log.
const ReceiverLog = "receiver-log"

// ReceiverLogRow is the table's row for the log of a receiver the battery
// started, read after the scenarios (logscan): FAIL when it shows a panic,
// a fatal error, a data race or a pattern asked for, since the receiver's
// answers were then right by luck; skip when it could not be read to its
// end, saying why, since no clean log was seen (the caller must then not
// report the battery as passed without saying so).
func ReceiverLogRow(o *logscan.Outcome) Row {
	r := Row{Scenario: ReceiverLog, Hazard: "the receiver panics, fails or races while its answers look right",
		Expected: "no line of the receiver's log shows a panic, fatal error, data race or pattern asked for",
		Observed: o.Line(), Result: Pass}
	switch {
	case o.Hit():
		r.Result = Fail
	case o.Unread():
		r.Result = Skip
	}
	return r
}
