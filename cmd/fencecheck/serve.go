package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/spf13/cobra"

	"github.com/fencecheck/fencecheck/browse"
)

func newServeCommand() *cobra.Command {
	var store, listen string
	cmd := &cobra.Command{
		Use:   "serve --store DIR",
		Short: "Browse the run store in a web browser (read-only)",
		Long: `serve shows the run store in a web browser: a table of the runs (target,
verdict, operations, stale writes exercised), and each run's report.html,
timeline.html and history. It only reads, only the files runs write, and only
inside the store. It listens on the loopback interface unless told otherwise.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runServe(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), store, listen)
		},
	}
	cmd.Flags().StringVar(&store, "store", "store", "run store directory")
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:8080", "address to listen on (port 0: any free port)")
	return cmd
}

func runServe(ctx context.Context, stdout, stderr io.Writer, store, listen string) error {
	h, err := browse.New(store)
	if err != nil {
		return &usageError{fmt.Errorf("--store: %w", err)}
	}
	defer h.Close()
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return &usageError{fmt.Errorf("--listen: %w", err)}
	}
	if !isLoopback(ln.Addr()) {
		fmt.Fprintf(stderr, "fencecheck: serving on %s, which is not a loopback address: anyone who can reach it can read the run store\n", ln.Addr())
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stdout, "serving run store %s at http://%s/ (Ctrl-C to stop)\n", store, ln.Addr())
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	<-stopped // Serve returns ErrServerClosed once Shutdown has begun
	return nil
}

func isLoopback(a net.Addr) bool {
	tcp, ok := a.(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
}
