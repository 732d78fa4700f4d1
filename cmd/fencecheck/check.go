package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/fencecheck/fencecheck/check"
	"github.com/fencecheck/fencecheck/harness"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/model"
	"github.com/fencecheck/fencecheck/report"
	"github.com/fencecheck/fencecheck/runstore"
)

type checkFlags struct {
	policy  string
	model   string
	checker string
	timeout time.Duration
	html    string
	json    bool
	follow  bool
	// minStale is the stale writes a pass needs (judge.Options.MinStale).
	minStale int
	gates    checkGates
}

func newCheckCommand() *cobra.Command {
	var f checkFlags
	cmd := &cobra.Command{
		Use:   "check HISTORY [HISTORY…]",
		Short: "Check recorded histories against the fenced-register model",
		Long:  help("check"),
		Args:  minArgs(1, "one HISTORY file or more"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCheck(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), args, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.policy, "policy", "strict", "fencing policy: strict or accept-equal")
	fl.StringVar(&f.model, "model", "fenced", "model: fenced (fenced register) or register (plain register, last writer wins)")
	fl.StringVar(&f.checker, "checker", check.Fast.String(), "checker: fast, porcupine, or both (exit 3 if they disagree)")
	fl.DurationVar(&f.timeout, "timeout", harness.DefaultConfig().Gates.CheckTimeout, "give up and report inconclusive after this long (0: never)")
	fl.IntVar(&f.minStale, "min-stale", judge.DefaultMinStale, "exit 2 unless the history holds at least this many stale writes (a write sent after a newer token was accepted on its resource); 0 accepts a history without one, and says HELD (no stale write tested)")
	fl.StringVar(&f.html, "html", "", "write porcupine's interactive visualization to this file")
	fl.BoolVar(&f.json, "json", false, "print the result as JSON")
	fl.BoolVar(&f.follow, "follow", false, "check one HISTORY as it is written, until its run's result.json appears (\"-\": standard input, until it ends), in memory bounded by the live window")
	f.gates.flags(cmd)
	return cmd
}

func (f checkFlags) options() (check.Options, error) {
	policy, err := parsePolicy(f.policy)
	if err != nil {
		return check.Options{}, err
	}
	opts := check.Options{Policy: policy, Timeout: f.timeout}
	if opts.Kind, err = model.ParseKind(f.model); err != nil {
		return opts, &usageError{fmt.Errorf("--model: %w", err)}
	}
	if opts.Checker, err = check.ParseChecker(f.checker); err != nil {
		return opts, &usageError{fmt.Errorf("--checker: %w", err)}
	}
	if f.timeout < 0 {
		return opts, &usageError{fmt.Errorf("--timeout: must not be negative")}
	}
	if f.gates.shrinkTimeout < 0 {
		return opts, &usageError{fmt.Errorf("--shrink-timeout: must not be negative")}
	}
	return opts, nil
}

// judgeOptions are the judgement's options from check's flags.
func (f checkFlags) judgeOptions() (judge.Options, error) {
	o := judge.DefaultOptions()
	var err error
	o.Check, err = f.options()
	o.ShrinkTimeout, o.MinStale = f.gates.shrinkTimeout, f.minStale
	if f.minStale < 0 {
		return o, &usageError{fmt.Errorf("--min-stale: must not be negative")}
	}
	return o, err
}

// runCheck judges the histories at paths as one. ctx, which Ctrl-C
// cancels, stops reading, checking and shrinking.
func runCheck(ctx context.Context, stdout, stderr io.Writer, paths []string, f checkFlags) error {
	if f.follow || len(paths) == 1 && paths[0] == "-" {
		if err := f.followable(paths); err != nil {
			return err
		}
		return runFollow(ctx, os.Stdin, stdout, stderr, paths[0], f)
	}
	o, err := f.judgeOptions()
	if err != nil {
		return err
	}
	if err := distinctFiles(paths); err != nil {
		return err
	}
	sources := make([]histories.Source, len(paths))
	for i, p := range paths {
		sources[i].Path = p
	}
	h, err := histories.Read(ctx, sources...)
	if err != nil {
		return err
	}
	rep := report.Checked{Format: runstore.ResultFormat, Histories: h.Parts, Truncated: h.Truncated, Judged: o}
	if len(paths) == 1 {
		rep.History = paths[0]
	}
	// The report and the visualization show the whole history, which is
	// kept only for them; otherwise the judge holds the only reference to
	// it, and frees it before it explains.
	var whole *histories.History
	if f.html != "" || f.gates.reportDir != "" || f.gates.junit != "" {
		whole = h
	}
	if rep.Report, err = judge.Judge(ctx, h, o); err != nil {
		return err
	}
	for _, n := range rep.Notes {
		fmt.Fprintf(stderr, "fencecheck: note: %s\n", n)
	}
	if err := f.gates.write(paths, whole, &rep, f); err != nil {
		return err
	}
	if f.html != "" {
		if err := report.WriteVisualization(f.html, whole, rep.Check, o.Check); err != nil {
			return err
		}
	}
	if err := printResult(stdout, f.json, rep, rep.Summary); err != nil {
		return err
	}
	if !f.json {
		if f.html != "" {
			fmt.Fprintf(stdout, "visualization  %s\n", f.html)
		}
		if f.gates.reportDir != "" {
			fmt.Fprintf(stdout, "report         %s\n", filepath.Join(f.gates.reportDir, runstore.Report))
		}
	}
	return exitFor(rep.Verdict)
}

// distinctFiles refuses a file given twice: its resources would be in
// two histories, which Join refuses less clearly.
func distinctFiles(paths []string) error {
	infos := make([]os.FileInfo, len(paths))
	for i, p := range paths {
		infos[i], _ = os.Stat(p) // a file that cannot be read is reported when it is read
		for j := range i {
			same := filepath.Clean(paths[j]) == filepath.Clean(p) ||
				infos[i] != nil && infos[j] != nil && os.SameFile(infos[i], infos[j])
			if same {
				return &usageError{fmt.Errorf("%s is given twice (as %s): give each history once", p, paths[j])}
			}
		}
	}
	return nil
}
