package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// newLeasesCommand is `fencecheck leases`, the token issuers fencecheck
// serves to other processes. It does nothing itself: each subcommand is
// one way to serve them, added below.
func newLeasesCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "leases COMMAND",
		Short: "Serve a token issuer to other fencecheck processes",
		Long:  help("leases"),
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return &usageError{fmt.Errorf("leases: want a command: %s", subcommands(cmd))}
			}
			return &usageError{fmt.Errorf("leases: unknown command %q (want %s)", args[0], subcommands(cmd))}
		},
		RunE: func(*cobra.Command, []string) error { return nil }, // Args refuses every call
	}
	cmd.AddCommand(newLeasesServeCommand(), newLeasesMemberCommand())
	return cmd
}

// subcommands lists the commands below cmd that its help shows.
func subcommands(cmd *cobra.Command) string {
	var names []string
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
		}
	}
	return strings.Join(names, ", ")
}
