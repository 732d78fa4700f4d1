package main

import (
	"github.com/spf13/cobra"

	"github.com/fencecheck/fencecheck/lease/etcd/embedded"
)

// newLeasesMemberCommand runs one member of an embedded etcd cluster: what
// `--leases etcd` starts, once per member, so that the issuer faults can
// crash and freeze members without touching fencecheck itself. Hidden:
// fencecheck writes the configuration file and starts it.
func newLeasesMemberCommand() *cobra.Command {
	return &cobra.Command{
		Use:    "member CONFIG",
		Short:  "Run one member of an embedded etcd cluster (started by --leases etcd)",
		Hidden: true,
		Args:   exactArgs(1, "the member's configuration file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return embedded.ServeMember(cmd.Context(), args[0])
		},
	}
}
