package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fencecheck/fencecheck/internal/natsserver"
	"github.com/fencecheck/fencecheck/targets/natstarget"
)

// natsFlags are the options of NATS targets.
type natsFlags struct {
	mode string
}

func (n *natsFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&n.mode, "nats-mode", "", "NATS targets: atomic (Update with the revision read, again on a conflict; the default) or check-then-set (Get, compare, Put: broken on purpose)")
}

// options returns the target's options; the private server of
// nats://embedded runs as `fencecheck nats-server CONFIG`, so that the
// kill fault can crash it without touching fencecheck.
func (n *natsFlags) options() (natstarget.Options, error) {
	o := natstarget.DefaultOptions()
	if n.mode != "" {
		o.Mode = natstarget.Mode(n.mode)
	}
	exe, err := os.Executable()
	if err != nil {
		return o, fmt.Errorf("--target: find fencecheck's executable for the private NATS server: %w", err)
	}
	o.Command = []string{exe, "nats-server"}
	return o, nil
}

// newNATSServerCommand runs the private NATS server of --target nats
// from the configuration file fencecheck wrote. Hidden: fencecheck
// starts it.
func newNATSServerCommand() *cobra.Command {
	return &cobra.Command{
		Use:    "nats-server CONFIG",
		Short:  "Run the private NATS server (started by --target nats)",
		Hidden: true,
		Args:   exactArgs(1, "the server's configuration file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return natsserver.Serve(cmd.Context(), args[0])
		},
	}
}
