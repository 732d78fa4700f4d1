package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/spf13/cobra"

	"github.com/fencecheck/fencecheck/browse"
	"github.com/fencecheck/fencecheck/internal/httpserver"
)

// serveFlags are the flags of `fencecheck serve`.
type serveFlags struct {
	store, listen string
	hosts         []string
	allowRemote   bool
}

func newServeCommand() *cobra.Command {
	var f serveFlags
	cmd := &cobra.Command{
		Use:   "serve --store DIR",
		Short: "Browse the run store in a web browser (read-only)",
		Long:  help("serve"),
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runServe(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.store, "store", "store", "run store directory")
	fl.StringVar(&f.listen, "listen", "127.0.0.1:8080", "address to listen on (port 0: any free port)")
	fl.StringArrayVar(&f.hosts, "host", nil, "also answer requests for this host name or IP address (repeatable)")
	fl.BoolVar(&f.allowRemote, "allow-remote", false, "answer requests for any host")
	return cmd
}

func runServe(ctx context.Context, stdout, stderr io.Writer, f serveFlags) error {
	if err := checkHostFlags(f.hosts); err != nil {
		return err
	}
	store, listen := f.store, f.listen
	h, err := browse.New(store)
	if err != nil {
		return &usageError{fmt.Errorf("--store: %w", err)}
	}
	defer h.Close()
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		// A port in use is the machine's state, not a misuse: no usage hint.
		return fmt.Errorf("--listen %s: %w", listen, err)
	}
	if !httpserver.IsLoopbackAddr(ln.Addr()) {
		fmt.Fprintf(stderr, "fencecheck: serving on %s, which is not a loopback address: anyone who can reach it can read the run store\n", ln.Addr())
		if !f.allowRemote {
			fmt.Fprintf(stderr, "fencecheck: only requests for loopback names, the --listen host and --host names are answered; add --host NAME for the name other machines use, or --allow-remote\n")
		}
	}
	srv, err := newServeServer(h, f)
	if err != nil {
		ln.Close()
		return &usageError{fmt.Errorf("--listen: %w", err)}
	}
	fmt.Fprintf(stdout, "serving run store %s at http://%s/ (Ctrl-C to stop)\n", store, ln.Addr())
	if err := httpserver.Serve(ctx, srv, ln, 5*time.Second); err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}

// newServeServer is serve's server for h: browse's timeouts, and the
// hosts the flags allow.
func newServeServer(h http.Handler, f serveFlags) (*http.Server, error) {
	o := browse.DefaultServerOptions()
	o.Hosts = httpserver.HostPolicy{AnyHost: f.allowRemote, Names: f.hosts, Listen: f.listen, Hint: hostHint}
	return httpserver.New(h, o)
}
