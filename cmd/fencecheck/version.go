package main

import (
	"github.com/spf13/cobra"

	"github.com/fencecheck/fencecheck/internal/buildinfo"
)

// version is a release build's version, set with
// -ldflags "-X main.version=…" (make dist does). Empty, the version is the
// one the Go toolchain recorded (see buildinfo.Read).
var version string

// build is what this binary knows of its own build.
func build() buildinfo.Info { return buildinfo.Read(version) }

func newVersionCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print fencecheck's version, VCS revision and Go toolchain",
		Long:  help("version"),
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			info := build()
			if asJSON {
				return printResult(cmd.OutOrStdout(), true, info, nil)
			}
			return info.WriteText(cmd.OutOrStdout())
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the build information as a JSON object")
	return cmd
}
