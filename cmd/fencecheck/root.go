package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	root := newRootCommand(stdout, stderr)
	root.SetArgs(args)
	return exitCode(root.ExecuteContext(ctx), stderr)
}

func newRootCommand(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "fencecheck",
		Short: "Test whether a resource rejects obsolete ownership tokens",
		Long: `fencecheck tests receivers that must reject obsolete ownership: a worker whose
lease expired can still write, and only the resource can refuse its stale
fencing token. fencecheck replays the failure, records histories, and checks
them against the fenced-register model.

Exit codes: 0 the invariant held, 1 a violation was found, 2 inconclusive,
3 error (bad flag, unreadable input, unreachable target).`,
		Version:       build().String(),
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetVersionTemplate("fencecheck {{.Version}}\n")
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{flagError(err)} })
	root.AddCommand(newCheckCommand(), newReplayCommand(), newRunCommand(), newSweepCommand(), newReceiverCommand(), newVerifyCommand(), newVerifyIssuerCommand())
	root.AddCommand(newServeCommand(), newLeasesCommand(), newCompareFixesCommand(), newVersionCommand())
	refuseRepeats(root)
	return root
}

// exactArgs is cobra.ExactArgs with the error marked as a usage error.
func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) != n {
			return &usageError{fmt.Errorf("want %s, got %d arguments", what, len(args))}
		}
		return nil
	}
}

// minArgs is cobra.MinimumNArgs with the error marked as a usage error.
func minArgs(n int, what string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) < n {
			return &usageError{fmt.Errorf("want %s, got %d arguments", what, len(args))}
		}
		return nil
	}
}
