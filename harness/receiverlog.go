package harness

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/fencecheck/fencecheck/internal/logscan"
	"github.com/fencecheck/fencecheck/internal/termsafe"
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
// a sign of a bug, counted, and the first of them quoted.
type ReceiverLog struct {
	logscan.Report
	// Error is why the log could not be read to its end; the run cannot
	// then hold, as a clean log was not seen.
	Error string `json:"error,omitempty"`
}

// scanReceiverLog reads the target's receiver log, once the receiver has
// stopped; nil when the target has none.
func scanReceiverLog(target any) *ReceiverLog {
	s, ok := target.(logScanner)
	if !ok {
		return nil
	}
	rep, err := s.ScanLog()
	l := &ReceiverLog{Report: rep}
	if err != nil {
		l.Error = termsafe.String(err.Error())
	}
	return l
}

// found reports whether the log shows a sign of a bug.
func (l *ReceiverLog) found() bool { return l != nil && l.Found() }

// unread reports whether the log could not be read to its end.
func (l *ReceiverLog) unread() bool { return l != nil && l.Error != "" }

// name is the log's file name, for people.
func (l *ReceiverLog) name() string {
	if l.File == "" {
		return "the receiver's log"
	}
	return filepath.Base(l.File)
}

// reason is a verdict's reason when the log shows a sign of a bug.
func (l *ReceiverLog) reason() string {
	return fmt.Sprintf("the receiver's log shows %s with signs of a bug: %s (%s)", lines(l.Hits), l.Summary(), l.name())
}

// unreadReason is a verdict's reason when the log could not be read.
func (l *ReceiverLog) unreadReason() string {
	return "the receiver's log could not be read to its end, so a panic or data race it shows may be missed: " + l.Error
}

// line is the summary's one-line account of the log.
func (l *ReceiverLog) line() string {
	switch {
	case l.found():
		return fmt.Sprintf("%s: %s with signs of a bug: %s", l.name(), lines(l.Hits), l.Summary())
	case l.unread():
		return fmt.Sprintf("%s not read to its end (%s)", l.name(), l.Error)
	}
	return fmt.Sprintf("%s: %s, no panic, fatal error, data race or pattern asked for", l.name(), lines(l.Lines))
}

// lines counts lines in words.
func lines(n int) string {
	if n == 1 {
		return "1 line"
	}
	return fmt.Sprintf("%d lines", n)
}

// writeExcerpts quotes the hits with their context, as the summary and
// JUnit show them.
func (l *ReceiverLog) writeExcerpts(b *strings.Builder, indent string) {
	for _, ex := range l.Excerpts {
		fmt.Fprintf(b, "%s%s at line %d:\n", indent, termsafe.String(ex.Pattern), ex.At)
		for _, ln := range ex.Lines {
			fmt.Fprintf(b, "%s  %6d | %s\n", indent, ln.N, ln.Text)
		}
	}
	if l.Unquoted > 0 {
		fmt.Fprintf(b, "%s… and %d more lines with signs of a bug, not quoted: see %s\n", indent, l.Unquoted, l.File)
	}
}

// writeSummary adds the quoted hits to the summary.
func (l *ReceiverLog) writeSummary(b *strings.Builder) {
	if !l.found() {
		return
	}
	fmt.Fprintf(b, "\nthe receiver's log (%s):\n", l.File)
	l.writeExcerpts(b, "  ")
}

// junitCase is the log's test case: failed with the quoted hits,
// an error when it could not be read.
func (l *ReceiverLog) junitCase() report.Case {
	c := report.Case{Name: "the receiver's log shows no panic, fatal error, data race or pattern asked for", Classname: "receiver-log"}
	switch {
	case l.found():
		var b strings.Builder
		l.writeExcerpts(&b, "")
		c.Failure = &report.Failure{Type: "violation", Message: l.reason(), Text: b.String()}
	case l.unread():
		c.Error = &report.Failure{Type: "inconclusive", Message: l.unreadReason()}
	}
	return c
}

// findings are the report's lines about the log: one per quoted hit.
func (l *ReceiverLog) findings() []string {
	var out []string
	for _, ex := range l.Excerpts {
		text := ""
		for _, ln := range ex.Lines {
			if ln.N == ex.At {
				text = ln.Text
			}
		}
		out = append(out, fmt.Sprintf("The receiver's log (%s) shows %s at line %d: %s", l.name(), termsafe.String(ex.Pattern), ex.At, text))
	}
	if l.Unquoted > 0 {
		out = append(out, fmt.Sprintf("… and %d more lines of the receiver's log with signs of a bug.", l.Unquoted))
	}
	if l.unread() {
		out = append(out, l.unreadReason())
	}
	return out
}
