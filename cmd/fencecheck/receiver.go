package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/fencecheck/fencecheck/targets/httptarget/receiver"
)

type receiverFlags struct {
	listen      string
	store       string
	bug         string
	maxBody     int64
	window      time.Duration
	allowRemote bool
	hosts       []string
	// metricsResources is how many resources /metrics labels by name.
	metricsResources int
	requestLog       string
}

func newReceiverCommand() *cobra.Command {
	var f receiverFlags
	cmd := &cobra.Command{
		Use:   "receiver",
		Short: "Serve the reference HTTP receiver (correct by default, with bug modes)",
		Long: `receiver serves the default protocol of docs/http-protocol.md:
PUT /resources/{id} with a Fencing-Token header and the value as body answers
204 (accepted) or 409 (stale); GET /resources/{id} answers 200 with the value
and its Fencing-Token, or 404.

It is correct by default: the comparison and the mutation are one atomic step.
With --store sqlite:PATH every accepted write is committed durably before the
answer, so the highest token survives a crash; PATH is taken as it is ('?',
'#', '%' are part of the name), and sqlite:file:URI passes a SQLite URI
filename. It refuses a store that SQLite could not put in WAL mode. --bug introduces one defect:
` + strings.Join(receiver.BugNames(), ", ") + `.

It listens on loopback only, and answers only requests for loopback names
(localhost, 127.0.0.1, [::1]), the --listen host and each --host, so a web
page cannot write to it by DNS rebinding; --allow-remote permits any
--listen address and answers every host. SIGTERM or Ctrl-C shut it down
gracefully.

GET /metrics serves Prometheus counters of what it answered: writes
accepted, rejected (stale, equal, newer), malformed requests, store errors,
and the highest accepted token of the first --metrics-resources resources
(see docs/metrics.md).

Every request is logged as one line (logfmt) to --request-log, stderr by
default: time, method, resource, Fencing-Token, status and the trace id of
the request's traceparent header, which fencecheck run sends with each
operation and prints with the operations of a counterexample. Under
fencecheck run --exec the lines land in the run's receiver.log.`,
		Args: exactArgs(0, "no arguments"),
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
	handler, closeLog, err := withRequestLog(h, f.requestLog, stderr)
	if err != nil {
		return err
	}
	defer closeLog()
	so := receiver.DefaultServerOptions()
	so.Listen, so.AllowRemote, so.Hosts, so.HostHint = f.listen, f.allowRemote, f.hosts, hostHint
	so.Ready = func(addr net.Addr) {
		fmt.Fprintf(stdout, "fencecheck receiver: listening on http://%s (store %s, bug %s)\n", addr, f.store, bug)
	}
	return receiver.Serve(ctx, handler, so)
}

// withRequestLog wraps h in the request log --request-log names:
// stderr, off, or a file opened for appending; closeLog closes the file.
func withRequestLog(h http.Handler, to string, stderr io.Writer) (_ http.Handler, closeLog func(), err error) {
	switch to {
	case "off":
		return h, func() {}, nil
	case "stderr":
		return receiver.LogRequests(h, stderr), func() {}, nil
	case "":
		return nil, nil, &usageError{errors.New("--request-log: want stderr, off or a file")}
	}
	f, err := os.OpenFile(to, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("--request-log: %w", err)
	}
	return receiver.LogRequests(h, f), func() { _ = f.Close() }, nil
}
