package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/fencecheck/fencecheck/explain"
	"github.com/fencecheck/fencecheck/report"
)

func printCheck(w io.Writer, rep checkReport) {
	c, res := rep.Counts, rep.Result
	fmt.Fprintf(w, "history        %s\n", rep.History)
	if rep.Truncated {
		fmt.Fprintf(w, "               (ended in a partial line, dropped: the writer was probably killed)\n")
	}
	fmt.Fprintf(w, "operations     %d: %d writes (%d accepted, %d rejected, %d unknown, %d failed), %d reads (%d unknown, %d failed)\n",
		c.Operations, c.Writes, c.Accepted, c.Rejected, c.UnknownWrites, c.FailedWrites, c.Reads, c.UnknownReads, c.FailedReads)
	fmt.Fprintf(w, "resources      %d, processes %d\n", c.Resources, c.Processes)
	fmt.Fprintf(w, "checker        %s, %s model, %s policy, %s\n", res.Checker, res.Model, res.Policy, res.Elapsed.Round(time.Microsecond))
	if res.CappedWrites+res.DroppedWrite > 0 {
		fmt.Fprintf(w, "fencing cap    %d unknown writes capped, %d dropped as certain no-ops\n", res.CappedWrites, res.DroppedWrite)
	}
	fmt.Fprintf(w, "verdict        %s: %s\n", strings.ToUpper(string(rep.Verdict)), rep.Reason)
	report.WriteErrors(w, "errors         ", rep.Evidence.Errors)
	_ = explain.WriteViolations(w, &res, rep.Minimal)
}
