package main

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/fencecheck/fencecheck/harness"
	"github.com/fencecheck/fencecheck/internal/httpserver"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/runmetrics"
)

// metricsFlags are run's --metrics flags: live Prometheus counters of a
// long run, for a soak test watched in Grafana (docs/metrics.md).
type metricsFlags struct {
	listen      string
	allowRemote bool
}

func (m *metricsFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&m.listen, "metrics", "", "serve the run's live counters for Prometheus at http://ADDR/metrics until the run ends, e.g. 127.0.0.1:9787 (see docs/metrics.md)")
	fl.BoolVar(&m.allowRemote, "metrics-allow-remote", false, "allow a --metrics address that is not loopback, and answer scrapes for any host")
}

// check refuses a --metrics address that is not loopback unless
// --metrics-allow-remote, before the run starts anything.
func (m *metricsFlags) check() error {
	if m.listen == "" {
		return nil
	}
	if err := httpserver.CheckLoopback(m.listen, m.allowRemote); err != nil {
		return &usageError{fmt.Errorf("--metrics: %w; pass --metrics-allow-remote to serve beyond this machine", err)}
	}
	return nil
}

// start serves cfg's run's counters at --metrics, makes them observe the
// run, and returns what stops the server; without --metrics, nothing.
func (m *metricsFlags) start(cfg *harness.Config, stderr io.Writer) (stop func(), err error) {
	if m.listen == "" {
		return func() {}, nil
	}
	metrics := runmetrics.New(nemesis.NamesOf(cfg.Nemesis.Faults))
	o := runmetrics.DefaultServerOptions()
	o.Listen, o.AllowRemote = m.listen, m.allowRemote
	srv, err := runmetrics.Start(metrics, o)
	if err != nil {
		// A port in use is the machine's state, not a misuse: no usage hint.
		return nil, fmt.Errorf("--metrics: %w", err)
	}
	cfg.Output.Observer = metrics
	fmt.Fprintf(stderr, "fencecheck: live metrics at http://%s/metrics until the run ends\n", srv.Addr())
	return func() {
		if err := srv.Close(); err != nil {
			fmt.Fprintf(stderr, "fencecheck: --metrics: %v\n", err)
		}
	}, nil
}
