package report

import (
	"strings"

	"github.com/fencecheck/fencecheck/logscan"
)

// LogCase is the JUnit case of a receiver's log: named by what was
// searched and found (logscan.Outcome.Line, with what the log can say of
// data races), failed with the quoted lines when the log shows a finding
// (a crash that ended the process, a data race, a pattern of the user's),
// an error when the log could not be read to its end (no clean log was
// seen). Warnings pass; the name counts them and quotes the first.
func LogCase(o *logscan.Outcome) Case {
	c := Case{Name: o.Line(), Classname: "receiver-log"}
	switch {
	case o.Fails():
		var b strings.Builder
		o.WriteExcerpts(&b, "")
		c.Failure = &Failure{Type: "violation", Message: o.Reason(), Text: b.String()}
	case o.Unread():
		c.Error = &Failure{Type: "inconclusive", Message: o.UnreadReason()}
	}
	return c
}
