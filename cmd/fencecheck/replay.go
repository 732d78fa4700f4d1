package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fencecheck/fencecheck/internal/redact"
	"github.com/fencecheck/fencecheck/replay"
	"github.com/fencecheck/fencecheck/targets"
	"github.com/fencecheck/fencecheck/targets/memory"
)

func newReplayCommand() *cobra.Command {
	var out, target string
	cmd := &cobra.Command{
		Use:   "replay",
		Short: "Replay the article's five-step timeline, deterministically",
		Long: `replay runs the article's local deterministic model: worker A receives token 41,
reads, pauses and loses its lease; worker B receives token 42 and writes a new
result; A resumes and submits its old result with 41; B repeats its write with
42. It runs against a receiver without fencing and a fenced one, plus the case
in which A's old token reaches the resource before B's newer one. There are no
sleeps and no timers: repeated runs give byte-identical output and files.

The fenced receiver defaults to the article's model, which accepts a repeat of
the current token (memory://accept-equal); --target replaces it.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runReplay(cmd, cmd.OutOrStdout(), out, target)
		},
	}
	cmd.Flags().StringVar(&out, "out", "replay-out", "directory for the traces and the comparison data")
	cmd.Flags().StringVar(&target, "target", "memory://accept-equal", "the fenced receiver to replay against")
	return cmd
}

func runReplay(cmd *cobra.Command, w io.Writer, out, spec string) error {
	fenced, err := replayReceiver(spec)
	if err != nil {
		return err
	}
	rep, err := replay.Run(cmd.Context(), replay.Receivers{
		Fenced:   fenced,
		Unfenced: func() targets.Target { return memory.NewUnfenced() },
	})
	if err != nil {
		return fmt.Errorf("replay against %s: %w", spec, err)
	}
	paths, err := rep.WriteFiles(out)
	if err != nil {
		return err
	}
	for _, line := range rep.Lines() {
		fmt.Fprintln(w, line)
	}
	fmt.Fprintln(w)
	if err := rep.WriteTable(w); err != nil {
		return err
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "The last line is the critical limit: a resource that remembers only its")
	fmt.Fprintln(w, "highest token accepts an old token that arrives before the newer one.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "The same timeline played by each client strategy's workers (docs/fixes.md):")
	fmt.Fprintln(w)
	if err := rep.WriteStrategyTable(w); err != nil {
		return err
	}
	fmt.Fprintln(w)
	for _, p := range paths {
		fmt.Fprintf(w, "wrote %s\n", p)
	}
	return nil
}

// replayReceiver returns a constructor of fresh receivers for spec; each
// replay case starts from an empty resource.
func replayReceiver(spec string) (func() targets.Target, error) {
	name, ok := strings.CutPrefix(spec, "memory://")
	if !ok {
		return nil, &usageError{fmt.Errorf("--target: replay supports memory:// targets here, got %q", redact.Spec(spec))}
	}
	if _, err := memory.Open(name); err != nil {
		return nil, &usageError{fmt.Errorf("--target: %w", err)}
	}
	return func() targets.Target {
		t, _ := memory.Open(name)
		return t
	}, nil
}
