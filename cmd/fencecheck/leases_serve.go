package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fencecheck/fencecheck/internal/files"
	"github.com/fencecheck/fencecheck/lease/etcd/embedded"
)

type leasesServeFlags struct {
	members    int
	dir        string
	listenInfo string
}

func newLeasesServeCommand() *cobra.Command {
	var f leasesServeFlags
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve an embedded etcd cluster to other fencecheck processes until stopped",
		Long: `serve starts an etcd cluster inside this process, as --leases etcd does for
one run (--members members on free loopback ports), and serves it until
SIGINT or SIGTERM, so that several fencecheck processes on this machine, the
shards of one job, take their tokens from one issuer. Once every member
serves clients it prints one line on stdout:

  endpoints 127.0.0.1:40123,127.0.0.1:40125,127.0.0.1:40127

which the other processes take as --leases etcd://127.0.0.1:40123,… ; with
--listen-info FILE it also writes that line to FILE (replacing it at once,
never half-written) and removes FILE when it stops.

The members listen on loopback only. Their data and logs are in --dir (one
folder per member, m0, m1, …): a new temporary directory by default,
removed when serve stops; a --dir of yours keeps the logs, and the data is
removed. For processes on other machines, serve a real etcd cluster
(deploy/kubernetes/ has one).`,
		Args: exactArgs(0, "no arguments"),
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
	dir, cleanup, err := serveDir(f.dir)
	if err != nil {
		return err
	}
	opts := embedded.DefaultOptions()
	opts.Members = f.members
	c, err := embedded.Start(ctx, dir, opts)
	if err != nil {
		return errors.Join(err, cleanup(nil))
	}
	defer func() {
		c.Stop()
		err = errors.Join(err, cleanup(c))
		fmt.Fprintln(stderr, "fencecheck leases serve: stopped")
	}()
	line, err := endpointsLine(c.Endpoints)
	if err != nil {
		return err
	}
	if f.listenInfo != "" {
		if err := writeAtomically(f.listenInfo, line); err != nil {
			return fmt.Errorf("--listen-info: %w", err)
		}
		defer func() { err = errors.Join(err, os.Remove(f.listenInfo)) }()
	}
	fmt.Fprint(stdout, line)
	fmt.Fprintf(stderr, "fencecheck leases serve: %d etcd members serve clients (data and logs in %s); pass --leases etcd://%s to other fencecheck processes; SIGINT or SIGTERM stops them\n",
		f.members, dir, strings.TrimPrefix(strings.TrimSpace(line), "endpoints "))
	<-ctx.Done()
	return nil
}

// serveDir returns the directory for the members and what removes it at
// the end: a temporary directory whole, a given one's data (the logs
// stay). A given directory that holds an earlier cluster's data is
// refused: its members would not join a cluster on new ports.
func serveDir(dir string) (string, func(*embedded.Cluster) error, error) {
	if dir == "" {
		tmp, err := os.MkdirTemp("", "fencecheck-leases-")
		if err != nil {
			return "", nil, fmt.Errorf("create a directory for the etcd members: %w", err)
		}
		return tmp, func(*embedded.Cluster) error { return os.RemoveAll(tmp) }, nil
	}
	if _, err := os.Stat(filepath.Join(dir, "m0", "data")); err == nil {
		return "", nil, &usageError{fmt.Errorf("--dir %s: holds an earlier cluster's data (%s); remove it or give another directory", dir, filepath.Join(dir, "m0", "data"))}
	}
	return dir, func(c *embedded.Cluster) error {
		if c == nil {
			return nil
		}
		return c.RemoveData()
	}, nil
}

// endpointsLine is "endpoints HOST:PORT,…\n" for the members' client URLs.
func endpointsLine(urls []string) (string, error) {
	eps := make([]string, len(urls))
	for i, u := range urls {
		parsed, err := url.Parse(u)
		if err != nil || parsed.Host == "" {
			return "", fmt.Errorf("embedded etcd: member %d has no client address in %q", i, u)
		}
		eps[i] = parsed.Host
	}
	return "endpoints " + strings.Join(eps, ",") + "\n", nil
}

// writeAtomically replaces the file at path with text: it is written
// beside it and renamed over it, so that a reader never sees half a line.
func writeAtomically(path, text string) error {
	tmp := path + ".tmp"
	if err := files.Write(tmp, "listen info", func(w io.Writer) error {
		_, err := io.WriteString(w, text)
		return err
	}); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return errors.Join(fmt.Errorf("rename %s to %s: %w", tmp, path, err), os.Remove(tmp))
	}
	return nil
}
