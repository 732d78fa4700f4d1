package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/fencecheck/fencecheck/targets/httptarget/receiver"
)

type receiverFlags struct {
	listen, store, bug, requestLog string
	hosts                          []string
	allowRemote                    bool
	maxBody                        int64
	window                         time.Duration
	metricsResources               int // how many resources /metrics labels by name
}

func newReceiverCommand() *cobra.Command {
	var f receiverFlags
	cmd := &cobra.Command{
		Use:   "receiver",
		Short: "Serve the reference HTTP receiver (correct by default, with bug modes)",
		Long:  strings.Replace(help("receiver"), "{{bugs}}", strings.Join(receiver.BugNames(), ", "), 1),
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runReceiver(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.listen, "listen", "127.0.0.1:8787", "address to listen on (port 0 picks a free one)")
	fl.StringVar(&f.store, "store", "memory", "memory, or a durable store: sqlite:PATH (the path as it is) or sqlite:file:URI (a SQLite URI)")
	fl.StringVar(&f.bug, "bug", "none", "deliberate defect: none, "+strings.Join(receiver.BugNames(), ", "))
	fl.Int64Var(&f.maxBody, "max-body", receiver.DefaultOptions().MaxBody, "largest accepted body in bytes (413 above)")
	fl.DurationVar(&f.window, "window", receiver.DefaultOptions().Window, "with --bug check-then-set: the wait between the check and the write (0: none)")
	fl.BoolVar(&f.allowRemote, "allow-remote", false, "allow a --listen address that is not loopback, and answer requests for any host")
	fl.StringArrayVar(&f.hosts, "host", nil, "also answer requests for this host name or IP address (repeatable)")
	fl.IntVar(&f.metricsResources, "metrics-resources", receiver.DefaultOptions().MetricsResources, "label the highest-token gauge at /metrics with at most this many resources' names (the first to have a write accepted); the others are only counted")
	fl.StringVar(&f.requestLog, "request-log", "stderr", "where to log one line per request: stderr, off, or a file to append to")
	return cmd
}

func runReceiver(ctx context.Context, stdout, stderr io.Writer, f receiverFlags) error {
	bug, err := receiver.ParseBug(f.bug)
	if err != nil {
		return &usageError{fmt.Errorf("--bug: %w", err)}
	}
	if f.maxBody <= 0 {
		return &usageError{fmt.Errorf("--max-body: must be positive")}
	}
	if f.window < 0 {
		return &usageError{fmt.Errorf("--window: must not be negative")}
	}
	if f.metricsResources < 0 {
		return &usageError{fmt.Errorf("--metrics-resources: must not be negative")}
	}
	if err := receiver.CheckListen(f.listen, f.allowRemote); err != nil {
		return &usageError{fmt.Errorf("--listen: %w; pass --allow-remote to serve beyond this machine", err)}
	}
	if err := checkHostFlags(f.hosts); err != nil {
		return err
	}
	store, err := receiver.ParseStore(f.store)
	if err != nil {
		return err
	}
	defer store.Close()
	h, err := receiver.NewHandler(store, receiver.Options{Bug: bug, MaxBody: f.maxBody, Window: f.window,
		Log: log.New(stderr, "receiver: ", log.LstdFlags), MetricsResources: f.metricsResources})
	if err != nil {
		return err
	}
	handler, closeLog, err := receiver.OpenRequestLog(h, f.requestLog, stderr)
	if errors.Is(err, receiver.ErrRequestLogName) {
		return &usageError{fmt.Errorf("--request-log: %w", err)}
	} else if err != nil {
		return fmt.Errorf("--request-log: %w", err)
	}
	defer closeLog()
	so := receiver.DefaultServerOptions()
	so.Listen, so.AllowRemote, so.Hosts, so.HostHint = f.listen, f.allowRemote, f.hosts, hostHint
	so.Ready = func(addr net.Addr) {
		fmt.Fprintf(stdout, "fencecheck receiver: listening on http://%s (store %s, bug %s)\n", addr, f.store, bug)
	}
	return receiver.Serve(ctx, handler, so)
}
