package main

import (
	"context"
	"fmt"
	"io"

	"github.com/fencecheck/fencecheck/explain"
	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/report"
	"github.com/fencecheck/fencecheck/runstore"
)

// runFollow is check for one history read as it is written: a FILE
// followed like tail -f until its run's result.json appears beside it, or
// "-", standard input, until it ends. It reports each violation the
// moment it is found, and the verdict at the end.
func runFollow(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, path string, f checkFlags) error {
	o, err := f.judgeOptions()
	if err != nil {
		return err
	}
	src, name := stdin, "standard input"
	if path != "-" {
		tail, err := runstore.Tail(ctx, path)
		if err != nil {
			return err
		}
		defer tail.Close()
		src, name = tail, path
	}
	followed, err := judge.Follow(ctx, src, name, o, func(v judge.Found) {
		if !f.json {
			fmt.Fprintf(stdout, "found          a violation on %s after %d events\n", v.Resource, v.Events)
			_ = explain.WriteViolations(stdout, &v.Explained, nil)
		}
	})
	if err != nil {
		return err
	}
	rep := report.Checked{Format: runstore.ResultFormat, History: path, Truncated: followed.Partial, Report: followed.Report, Judged: o}
	for _, n := range rep.Notes {
		fmt.Fprintf(stderr, "fencecheck: note: %s\n", n)
	}
	if err := printResult(stdout, f.json, rep, rep.Summary); err != nil {
		return err
	}
	return exitFor(rep.Verdict)
}

// followable refuses what a followed check does not do: several files,
// and the outputs that need the whole history (the report, JUnit, the
// visualization).
func (f checkFlags) followable(paths []string) error {
	switch {
	case len(paths) != 1:
		return &usageError{fmt.Errorf("--follow: give one HISTORY file, or - for standard input")}
	case f.html != "" || f.gates.reportDir != "" || f.gates.junit != "":
		return &usageError{fmt.Errorf("--follow: --html, --report and --junit need the whole history; check the file once it is written")}
	}
	return nil
}
