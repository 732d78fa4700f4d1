package report

import (
	"strings"

	"github.com/fencecheck/fencecheck/logscan"
)

// LogCase is the JUnit case of a receiver's log: failed with the quoted
// lines that show a sign of a bug, an error when the log could not be
// read to its end (no clean log was seen).
func LogCase(o *logscan.Outcome) Case {
	c := Case{Name: "the receiver's log shows no panic, fatal error, data race or pattern asked for", Classname: "receiver-log"}
	switch {
	case o.Hit():
		var b strings.Builder
		o.WriteExcerpts(&b, "")
		c.Failure = &Failure{Type: "violation", Message: o.Reason(), Text: b.String()}
	case o.Unread():
		c.Error = &Failure{Type: "inconclusive", Message: o.UnreadReason()}
	}
	return c
}
