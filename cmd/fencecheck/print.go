package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/internal/termsafe"
	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/report"
)

// printResult prints a command's result: as indented JSON with --json,
// else as summary gives it for people.
func printResult(w io.Writer, asJSON bool, v any, summary func() string) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	_, err := fmt.Fprint(w, summary())
	return err
}

// printCheckReport prints what check found, as JSON with --json.
func printCheckReport(w io.Writer, asJSON bool, rep checkReport) error {
	return printResult(w, asJSON, rep, func() string {
		var b strings.Builder
		printCheck(&b, rep)
		return b.String()
	})
}

func printCheck(w io.Writer, rep checkReport) {
	c, res := rep.Counts, rep.Check
	if len(rep.Histories) > 0 {
		printHistories(w, rep.Histories)
	} else {
		fmt.Fprintf(w, "history        %s\n", rep.History)
		if rep.Truncated {
			fmt.Fprintf(w, "               (%s)\n", partialLine)
		}
	}
	fmt.Fprintf(w, "operations     %d: %d writes (%d accepted, %d rejected, %d unknown, %d failed), %d reads (%d unknown, %d failed)\n",
		c.Operations, c.Writes, c.Accepted, c.Rejected, c.UnknownWrites, c.FailedWrites, c.Reads, c.UnknownReads, c.FailedReads)
	fmt.Fprintf(w, "resources      %d, processes %d\n", c.Resources, c.Processes)
	fmt.Fprintf(w, "checker        %s, %s model, %s policy, %s\n", res.Checker, res.Model, res.Policy, res.Elapsed.Round(time.Microsecond))
	if res.CappedWrites+res.DroppedWrite > 0 {
		fmt.Fprintf(w, "fencing cap    %d unknown writes capped, %d dropped as certain no-ops\n", res.CappedWrites, res.DroppedWrite)
	}
	writeHazards(w, &rep.Report, &rep.judged)
	fmt.Fprintf(w, "verdict        %s: %s\n", rep.Headline(), rep.Reason)
	if rep.Verdict == judge.Held && rep.Power.StaleTested > 0 {
		fmt.Fprintf(w, "power          %s\n", rep.Power.Sentence())
	}
	_ = judge.WriteFindingLines(w, &rep.Report, "finding        ")
	report.WriteErrors(w, "errors         ", rep.Evidence.Errors)
	_ = judge.WriteFindings(w, &rep.Report)
}

// partialLine says what a history whose last line was cut short lost.
const partialLine = "ended in a partial line, dropped: the writer was probably killed"

// printHistories names the files checked as one, and where each went in
// the history checked: the indexes, times and processes that the output
// shows of a file are its own plus the offsets printed beside it.
func printHistories(w io.Writer, placed []histories.Placed) {
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
