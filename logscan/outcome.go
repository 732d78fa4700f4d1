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

// Fails reports whether the log shows a finding (a crash that ended the
// process, a data race, a user's pattern): the run fails; false for nil.
func (o *Outcome) Fails() bool { return o != nil && o.Failed() }

// Warns reports whether the log shows hits that are warnings only;
// false for nil.
func (o *Outcome) Warns() bool { return o != nil && o.Found() && !o.Failed() }

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

// Reason says, as a verdict's reason, what findings the log shows.
func (o *Outcome) Reason() string {
	return fmt.Sprintf("the receiver's log (%s) shows %s", o.Name(), o.FindingSummary())
}

// UnreadReason says, as a verdict's reason, that the log was not read.
func (o *Outcome) UnreadReason() string {
	return "the receiver's log could not be read to its end, so a crash or data race it shows may be missed: " + o.Error
}

// Line is a one-line account of the log: what was searched, what was
// found, and what it can say about data races.
func (o *Outcome) Line() string {
	if o.Unread() {
		return fmt.Sprintf("%s not read to its end (%s)", o.Name(), o.Error)
	}
	return o.Name() + ": " + o.Claim()
}

// Brief is Line without the examples, for a table's cell: the quoted
// lines follow the table.
func (o *Outcome) Brief() string {
	if o.Unread() {
		return o.Line()
	}
	return o.Name() + ": " + o.BriefClaim()
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
		fmt.Fprintf(b, "%s… and %s more, not quoted: see %s\n", indent, hits(o.Unquoted), o.File)
	}
}

// WriteQuoted writes, when the log shows a hit (a finding or a
// warning), a heading naming the log and the quoted hits; nothing
// otherwise.
func (o *Outcome) WriteQuoted(b *strings.Builder) {
	if o == nil || !o.Found() {
		return
	}
	fmt.Fprintf(b, "\nthe receiver's log (%s):\n", o.File)
	o.WriteExcerpts(b, "  ")
}

// Sentences are one sentence per pattern that hit, findings first, saying
// how many, whether they fail the run, and the first; then one for a log
// not read. A clean log has none.
func (o *Outcome) Sentences() []string {
	var out []string
	for _, fails := range []bool{true, false} {
		for _, c := range o.Counts {
			if (c.Findings > 0) == fails {
				out = append(out, fmt.Sprintf("The receiver's log (%s) shows %s.", o.Name(), c.String()))
			}
		}
	}
	if o.Unread() {
		out = append(out, o.UnreadReason())
	}
	return out
}

// hits counts hits in words.
func hits(n int) string {
	if n == 1 {
		return "1 hit"
	}
	return thousands(n) + " hits"
}
