package logscan

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/fencecheck/fencecheck/internal/termsafe"
)

// Outcome is a scan as a run's result records it: what it found, and why
// it could not read the log to its end. A log that could not be read is
// never a clean one: Unread says so, and the caller must not pass on it.
type Outcome struct {
	Report
	// Error is why the log could not be read to its end.
	Error string `json:"error,omitempty"`
}

// NewOutcome records a scan's report and error.
func NewOutcome(rep Report, err error) *Outcome {
	o := &Outcome{Report: rep}
	if err != nil {
		o.Error = termsafe.String(err.Error())
	}
	return o
}

// Hit reports whether the log shows a sign of a bug; false for nil.
func (o *Outcome) Hit() bool { return o != nil && o.Found() }

// Unread reports whether the log could not be read to its end; false for
// nil.
func (o *Outcome) Unread() bool { return o != nil && o.Error != "" }

// Name is the log's file name, for people.
func (o *Outcome) Name() string {
	if o.File == "" {
		return "the receiver's log"
	}
	return filepath.Base(o.File)
}

// Reason says, as a verdict's reason, what signs of a bug the log shows.
func (o *Outcome) Reason() string {
	return fmt.Sprintf("the receiver's log shows %s with signs of a bug: %s (%s)", lines(o.Hits), o.Summary(), o.Name())
}

// UnreadReason says, as a verdict's reason, that the log was not read.
func (o *Outcome) UnreadReason() string {
	return "the receiver's log could not be read to its end, so a panic or data race it shows may be missed: " + o.Error
}

// Line is a one-line account of the log.
func (o *Outcome) Line() string {
	switch {
	case o.Hit():
		return fmt.Sprintf("%s: %s with signs of a bug: %s", o.Name(), lines(o.Hits), o.Summary())
	case o.Unread():
		return fmt.Sprintf("%s not read to its end (%s)", o.Name(), o.Error)
	}
	return fmt.Sprintf("%s: %s, no panic, fatal error, data race or pattern asked for", o.Name(), lines(o.Lines))
}

// WriteExcerpts quotes the hits with their context, each line indented
// by indent and numbered.
func (o *Outcome) WriteExcerpts(b *strings.Builder, indent string) {
	for _, ex := range o.Excerpts {
		fmt.Fprintf(b, "%s%s at line %d:\n", indent, termsafe.String(ex.Pattern), ex.At)
		for _, ln := range ex.Lines {
			fmt.Fprintf(b, "%s  %6d | %s\n", indent, ln.N, ln.Text)
		}
	}
	if o.Unquoted > 0 {
		fmt.Fprintf(b, "%s… and %s with signs of a bug, not quoted: see %s\n", indent, lines(o.Unquoted), o.File)
	}
}

// WriteQuoted writes, when the log shows a sign of a bug, a heading
// naming the log and the quoted hits; nothing otherwise.
func (o *Outcome) WriteQuoted(b *strings.Builder) {
	if !o.Hit() {
		return
	}
	fmt.Fprintf(b, "\nthe receiver's log (%s):\n", o.File)
	o.WriteExcerpts(b, "  ")
}

// Findings are one sentence per quoted hit, with the line that matched,
// and one for the hits not quoted or a log not read.
func (o *Outcome) Findings() []string {
	var out []string
	for _, ex := range o.Excerpts {
		text := ""
		for _, ln := range ex.Lines {
			if ln.N == ex.At {
				text = ln.Text
			}
		}
		out = append(out, fmt.Sprintf("The receiver's log (%s) shows %s at line %d: %s", o.Name(), termsafe.String(ex.Pattern), ex.At, text))
	}
	if o.Unquoted > 0 {
		out = append(out, fmt.Sprintf("… and %s more of the receiver's log with signs of a bug.", lines(o.Unquoted)))
	}
	if o.Unread() {
		out = append(out, o.UnreadReason())
	}
	return out
}

// lines counts lines in words.
func lines(n int) string {
	if n == 1 {
		return "1 line"
	}
	return fmt.Sprintf("%d lines", n)
}
