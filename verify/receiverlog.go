package verify

import (
	"github.com/fencecheck/fencecheck/logscan"
)

// ReceiverLog is the name of the row of a receiver's log.
const ReceiverLog = "receiver-log"

// ReceiverLogRow is the table's row for the log of a receiver the battery
// started, read after the scenarios (logscan): FAIL when it shows a
// finding (a crash that ended the process, a data race, a pattern asked
// for), since the receiver's answers were then right by luck; skip when
// it could not be read to its end, saying why, since no clean log was
// seen (the caller must then not report the battery as passed without
// saying so). Otherwise it passes, and what it observed names what was
// searched, the warnings it counted (a traceback a server caught and
// logged) and what the log can say about data races: "no data race" only
// of a receiver built with the race detector.
func ReceiverLogRow(o *logscan.Outcome) Row {
	r := Row{Scenario: ReceiverLog, Hazard: "the receiver crashes, fails or races while its answers look right",
		Expected: "no crash that ended the receiver, data race or pattern asked for in its log",
		Observed: o.Brief(), Result: Pass}
	switch {
	case o.Fails():
		r.Result = Fail
	case o.Unread():
		r.Result = Skip
	}
	return r
}
