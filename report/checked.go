package report

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/internal/termsafe"
	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/runstore"
)

// Checked is what fencecheck check judged: one history file, or several
// checked as one, and the judge's report. Its JSON is what check --json
// prints (the judgement in the schema a run's result.json shares, beside
// the files); WriteText is what check prints for people.
type Checked struct {
	Format int `json:"format"` // runstore.ResultFormat
	// History is the file checked; Histories are the files checked as
	// one, with where each went in the history judged.
	History   string             `json:"history,omitempty"`
	Histories []histories.Placed `json:"histories,omitempty"`
	// Truncated: the file's last line was cut short and dropped.
	Truncated bool `json:"truncated,omitempty"`
	judge.Report
	// Judged are the options the history was judged with.
	Judged judge.Options `json:"-"`
}

// partialLine says what a history whose last line was cut short lost.
const partialLine = "ended in a partial line, dropped: the writer was probably killed"

// Title names what was checked: the file, or the files.
func (c *Checked) Title() string {
	if len(c.Histories) == 0 {
		return c.History
	}
	names := make([]string, len(c.Histories))
	for i, p := range c.Histories {
		names[i] = p.Name
	}
	return strings.Join(names, " ")
}

// WriteText writes the judgement as check prints it: the files, the
// operations, the checker, the hazards exercised, the verdict, its power,
// the findings, the errors and the explained violations.
func (c *Checked) WriteText(w io.Writer) error {
	var b strings.Builder
	n, res := c.Counts, c.Check
	if len(c.Histories) > 0 {
		writePlaced(&b, c.Histories)
	} else {
		fmt.Fprintf(&b, "history        %s\n", c.History)
		if c.Truncated {
			fmt.Fprintf(&b, "               (%s)\n", partialLine)
		}
	}
	fmt.Fprintf(&b, "operations     %d: %d writes (%d accepted, %d rejected, %d unknown, %d failed), %d reads (%d unknown, %d failed)\n",
		n.Operations, n.Writes, n.Accepted, n.Rejected, n.UnknownWrites, n.FailedWrites, n.Reads, n.UnknownReads, n.FailedReads)
	fmt.Fprintf(&b, "resources      %d, processes %d\n", n.Resources, n.Processes)
	fmt.Fprintf(&b, "checker        %s, %s model, %s policy, %s\n", res.Checker, res.Model, res.Policy, res.Elapsed.Round(time.Microsecond))
	if res.CappedWrites+res.DroppedWrite > 0 {
		fmt.Fprintf(&b, "fencing cap    %d unknown writes capped, %d dropped as certain no-ops\n", res.CappedWrites, res.DroppedWrite)
	}
	writeHazards(&b, &c.Report, &c.Judged)
	fmt.Fprintf(&b, "verdict        %s: %s\n", c.Headline(), c.Reason)
	if c.Verdict == judge.Held && c.Power.StaleTested > 0 {
		fmt.Fprintf(&b, "power          %s\n", c.Power.Sentence())
	}
	_ = judge.WriteFindingLines(&b, &c.Report, "finding        ") // a strings.Builder takes every write
	WriteErrors(&b, "errors         ", c.Evidence.Errors)
	_ = judge.WriteFindings(&b, &c.Report)
	_, err := io.WriteString(w, b.String())
	return err
}

// Summary is WriteText's text.
func (c *Checked) Summary() string {
	var b strings.Builder
	_ = c.WriteText(&b) // a strings.Builder takes every write
	return b.String()
}

// Suite is the judgement as JUnit: one case per resource of h, the
// history judged.
func (c *Checked) Suite(h *histories.History) Suite {
	prop := Fact{Name: "history", Value: c.Title()}
	if len(c.Histories) > 0 {
		prop.Name = "histories"
	}
	return Suite{Name: "fencecheck check " + c.Title(), Properties: []Fact{prop}, Cases: CheckCases(c.Check, Resources(h), c.Minimal)}
}

// writePlaced names the files checked as one, and where each went in
// the history checked: the indexes, times and processes that the output
// shows of a file are its own plus the offsets printed beside it.
func writePlaced(w io.Writer, placed []histories.Placed) {
	fmt.Fprintf(w, "histories      %d files, checked as one; each file's indexes, times and processes follow the file's before it\n", len(placed))
	for _, p := range placed {
		fmt.Fprintf(w, "               %s", termsafe.String(p.Name))
		if p.Index+p.Time+int64(p.Process) > 0 {
			fmt.Fprintf(w, " (index +%d, time +%v, process +%d)", p.Index, time.Duration(p.Time), p.Process)
		}
		if p.Truncated {
			fmt.Fprintf(w, " (%s)", partialLine)
		}
		fmt.Fprintln(w)
	}
}

// writeHazards writes what the history exercised, hazard by hazard, two
// to a line.
func writeHazards(w io.Writer, rep *judge.Report, o *judge.Options) {
	hs := rep.Hazards(o)
	for i := 0; i < len(hs); i += 2 {
		head := "exercised      "
		if i > 0 {
			head = "               "
		}
		line := hs[i].String()
		if i+1 < len(hs) {
			line += "; " + hs[i+1].String()
		}
		fmt.Fprintf(w, "%s%s\n", head, line)
	}
}

// WriteDir writes the check's report directory: report.html,
// timeline.html and, for a violation, minimal.html and minimal.jsonl. h
// is the history judged; command the line that repeats the check.
func (c *Checked) WriteDir(dir string, h *histories.History, command string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create the report directory: %w", err)
	}
	in := Input{Title: c.Title(), Verdict: c.Verdict, Reason: c.Reason, History: h, Check: c.Check,
		Options: c.Judged.Check, Minimal: c.Minimal, Kinds: c.Findings, Command: command}
	if c.Minimal != nil {
		in.Files = []string{runstore.Minimal, runstore.MinimalHistory}
	}
	_, err := Write(dir, in, DefaultLimits())
	return err
}
