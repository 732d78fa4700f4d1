package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fencecheck/fencecheck/internal/files"
	"github.com/fencecheck/fencecheck/lease/etcd/embedded"
)

type leasesServeFlags struct {
	members         int
	dir, listenInfo string
}

func newLeasesServeCommand() *cobra.Command {
	var f leasesServeFlags
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve an embedded etcd cluster to other fencecheck processes until stopped",
		Long:  help("leases-serve"),
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runLeasesServe(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), f)
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&f.members, "members", embedded.DefaultOptions().Members, "etcd members, each on its own loopback ports; a majority must be up")
	fl.StringVar(&f.dir, "dir", "", "directory for the members' data and logs (default: a temporary directory, removed at the end)")
	fl.StringVar(&f.listenInfo, "listen-info", "", "also write the endpoints line to this file once the cluster serves, and remove it at the end")
	return cmd
}

func runLeasesServe(ctx context.Context, stdout, stderr io.Writer, f leasesServeFlags) (err error) {
	if f.members < 1 {
		return &usageError{fmt.Errorf("--members: %d: need at least one", f.members)}
	}
	opts := embedded.DefaultOptions()
	opts.Members = f.members
	served, wrote := false, false
	err = embedded.Serve(ctx, f.dir, opts, func(addrs []string, dir string) error {
		served = true
		line := "endpoints " + strings.Join(addrs, ",") + "\n"
		if f.listenInfo != "" {
			if err := files.WriteAtomically(f.listenInfo, "listen info", func(w io.Writer) error {
				_, err := io.WriteString(w, line)
				return err
			}); err != nil {
				return fmt.Errorf("--listen-info: %w", err)
			}
			wrote = true
		}
		fmt.Fprint(stdout, line)
		fmt.Fprintf(stderr, "fencecheck leases serve: %d etcd members serve clients (data and logs in %s); pass --leases etcd://%s to other fencecheck processes; SIGINT or SIGTERM stops them\n",
			f.members, dir, strings.Join(addrs, ","))
		return nil
	})
	if errors.Is(err, embedded.ErrEarlierData) {
		return &usageError{fmt.Errorf("--dir %w", err)}
	}
	if wrote {
		err = errors.Join(err, os.Remove(f.listenInfo))
	}
	if served {
		fmt.Fprintln(stderr, "fencecheck leases serve: stopped")
	}
	return err
}
