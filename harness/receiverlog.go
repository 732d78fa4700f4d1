package harness

import (
	"fmt"
	"strings"

	"github.com/fencecheck/fencecheck/internal/logscan"
	"github.com/fencecheck/fencecheck/report"
)

// logScanner is implemented by targets whose receiver writes a log
// fencecheck can read (a receiver process's receiver.log, process.Target):
// its signs of a bug are evidence the history cannot hold, as in Jepsen's
// log-file-pattern checker.
type logScanner interface {
	ScanLog() (logscan.Report, error)
}

// ReceiverLog is what the receiver's log showed: every line that matched
// a sign of a bug, counted, the first of them quoted, and why the log
// could not be read to its end, when it could not; a run cannot hold
// then, as a clean log was not seen.
type ReceiverLog = logscan.Outcome

// scanReceiverLog reads the target's receiver log, once the receiver has
// stopped; nil when the target has none.
func scanReceiverLog(target any) *ReceiverLog {
	s, ok := target.(logScanner)
	if !ok {
		return nil
	}
	return logscan.NewOutcome(s.ScanLog())
}

// writeReceiverLog adds the quoted hits of the receiver's log to the
// summary.
func writeReceiverLog(b *strings.Builder, l *ReceiverLog) {
	if !l.Hit() {
		return
	}
	fmt.Fprintf(b, "\nthe receiver's log (%s):\n", l.File)
	l.WriteExcerpts(b, "  ")
}

// ReceiverLogCase is the JUnit test case of a receiver's log: failed with
// the quoted hits, an error when the log could not be read.
func ReceiverLogCase(l *ReceiverLog) report.Case {
	c := report.Case{Name: "the receiver's log shows no panic, fatal error, data race or pattern asked for", Classname: "receiver-log"}
	switch {
	case l.Hit():
		var b strings.Builder
		l.WriteExcerpts(&b, "")
		c.Failure = &report.Failure{Type: "violation", Message: l.Reason(), Text: b.String()}
	case l.Unread():
		c.Error = &report.Failure{Type: "inconclusive", Message: l.UnreadReason()}
	}
	return c
}
