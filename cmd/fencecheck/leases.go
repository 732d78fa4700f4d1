package main

import "github.com/spf13/cobra"

// newLeasesCommand is the parent of the commands that serve a run's token
// issuer (an embedded etcd cluster's member processes).
func newLeasesCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "leases",
		Short: "Serve the token issuers fencecheck runs itself",
		Args:  exactArgs(0, "a subcommand"),
	}
	cmd.AddCommand(newLeasesMemberCommand())
	return cmd
}
