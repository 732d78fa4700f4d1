package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/fencecheck/fencecheck/internal/cliflags"
)

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	root := newRootCommand(stdout, stderr)
	root.SetArgs(args)
	return exitCode(root.ExecuteContext(ctx), stderr)
}

func newRootCommand(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "fencecheck",
		Short:         "Test whether a resource rejects obsolete ownership tokens",
		Long:          help("fencecheck"),
		Version:       build().String(),
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetVersionTemplate("fencecheck {{.Version}}\n")
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{cliflags.Error(err)} })
	root.AddCommand(newCheckCommand(), newReplayCommand(), newRunCommand(), newSweepCommand(), newReceiverCommand(), newVerifyCommand(), newVerifyIssuerCommand())
	root.AddCommand(newServeCommand(), newLeasesCommand(), newCompareFixesCommand(), newAuditCommand(), newVersionCommand(), newNATSServerCommand())
	cliflags.Guard(root) // a single-valued flag given twice is refused, not overridden in silence
	return root
}

// exactArgs is cobra.ExactArgs with the error marked as a usage error.
func exactArgs(n int, what string) cobra.PositionalArgs {
	return argCount(what, func(got int) bool { return got == n })
}

// minArgs is cobra.MinimumNArgs with the error marked as a usage error.
func minArgs(n int, what string) cobra.PositionalArgs {
	return argCount(what, func(got int) bool { return got >= n })
}

func argCount(what string, ok func(got int) bool) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if !ok(len(args)) {
			return &usageError{fmt.Errorf("want %s, got %d arguments", what, len(args))}
		}
		return nil
	}
}

// warn reports warnings on w, the command's stderr: what went wrong
// around a run without changing its verdict or the exit code.
func warn(w io.Writer, warnings []string) {
	for _, s := range warnings {
		fmt.Fprintf(w, "fencecheck: warning: %s\n", s)
	}
}
