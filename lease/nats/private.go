package natslease

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/fencecheck/fencecheck/internal/natsserver"
	"github.com/fencecheck/fencecheck/lease"
	"github.com/fencecheck/fencecheck/lease/private"
	"github.com/fencecheck/fencecheck/targets/process"
)

// ServerName is how events name a private issuer's server.
const ServerName = "nats-server"

// PrivateIssuer is a NATS issuer on a server that fencecheck starts
// itself when the run opens it (the spec "nats", or "nats?sync=always"):
// the nats-server/v2 module's, run by Command as a child process, on a
// free loopback port, with its configuration and log in the nats folder
// of the run directory. Its service can crash, restart and freeze the
// server (private.Service).
type PrivateIssuer struct {
	// Sync fsyncs every write before the server acknowledges it
	// (sync_interval: always).
	Sync bool
	// Command runs the server: a program and its arguments, to which the
	// configuration file is appended (`fencecheck nats-server`).
	Command []string
	Poll    lease.PollOptions
	// ReadyTimeout bounds the wait for the server to answer, at the
	// start and when it starts again.
	ReadyTimeout time.Duration
	_            struct{}
}

// NewPrivateIssuer returns the issuer of a private server run by
// command.
func NewPrivateIssuer(sync bool, command []string, poll lease.PollOptions) *PrivateIssuer {
	return &PrivateIssuer{Sync: sync, Command: command, Poll: poll, ReadyTimeout: 30 * time.Second}
}

// Name implements lease.Issuer: "private nats-server (sync_interval:
// always)".
func (i *PrivateIssuer) Name() string {
	if i.Sync {
		return "private " + ServerName + " (sync_interval: always)"
	}
	return "private " + ServerName + " (default fsync, every 2m)"
}

// HasServers reports that the services Open returns have a server the
// issuer faults can crash and freeze.
func (i *PrivateIssuer) HasServers() bool { return true }

// TokenSource implements lease.TokenSource.
func (i *PrivateIssuer) TokenSource() string { return Tokens }

// Open implements lease.Issuer: it starts the server in env.Dir's nats
// folder and serves leases from it. Its store goes in nats/store,
// deleted when the run closes the service; the configuration and the
// log stay.
func (i *PrivateIssuer) Open(ctx context.Context, env lease.Env) (lease.Service, error) {
	if env.Dir == "" {
		return nil, fmt.Errorf("private %s: the run gave no directory for its data", ServerName)
	}
	if len(i.Command) == 0 {
		return nil, fmt.Errorf("private %s: no command runs the server", ServerName)
	}
	dir, err := filepath.Abs(filepath.Join(env.Dir, "nats"))
	if err != nil {
		return nil, fmt.Errorf("private %s: %w", ServerName, err)
	}
	store := filepath.Join(dir, "store")
	removeData := func() error { return os.RemoveAll(store) }
	var cfg natsserver.Config
	child, _, err := private.StartOnFreePort(ctx, func(port int) (*process.Child, error) {
		cfg = natsserver.Config{Port: port, StoreDir: store, Sync: i.Sync}
		conf, err := natsserver.Write(dir, cfg)
		if err != nil {
			return nil, err
		}
		child := process.NewChild(natsserver.Cmdline(i.Command, conf), cfg.Addr(), process.Ready(natsserver.Ready(cfg.URL())))
		child.Role = "private " + ServerName
		child.StartTimeout = i.ReadyTimeout
		child.SetLogFile(filepath.Join(dir, "nats-server.log"))
		return child, nil
	})
	if err != nil {
		return nil, fmt.Errorf("private %s: %w", ServerName, errors.Join(err, removeData()))
	}
	st, err := Connect(ctx, cfg.URL())
	if err != nil {
		return nil, errors.Join(err, child.Stop(0), removeData())
	}
	return private.NewService(lease.NewPolled(env, st, i.Poll),
		private.Server{Name: ServerName, Child: child, Restarted: st.reconnected, RemoveData: removeData}), nil
}

// reconnectWait bounds reconnected.
const reconnectWait = 10 * time.Second

// reconnected waits, after a restart of the server, until the client has
// reconnected (it does so on its own), so that the fault reports the
// issuer back only when it answers.
func (s *Store) reconnected() {
	ctx, cancel := context.WithTimeout(context.Background(), reconnectWait)
	defer cancel()
	for s.nc.Status() != nats.CONNECTED || s.nc.FlushWithContext(ctx) != nil {
		select {
		case <-ctx.Done():
			return
		case <-time.After(10 * time.Millisecond):
		}
	}
}
