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
		Long:  help("replay"),
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runReplay(cmd, cmd.OutOrStdout(), out, target)
		},
	}
	cmd.Flags().StringVar(&out, "out", "replay-out", "directory for the traces and the comparison data")
	cmd.Flags().StringVar(&target, "target", "memory://accept-equal", "the fenced receiver to replay against")
	return cmd
}

func runReplay(cmd *cobra.Command, w io.Writer, out, spec string) error {
	name, ok := strings.CutPrefix(spec, "memory://")
	if !ok {
		return &usageError{fmt.Errorf("--target: replay supports memory:// targets here, got %q", redact.Spec(spec))}
	}
	fenced, err := memory.Maker(name)
	if err != nil {
		return &usageError{fmt.Errorf("--target: %w", err)}
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
	return rep.WriteText(w, paths)
}
