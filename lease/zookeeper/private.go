package zklease

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/fencecheck/fencecheck/lease"
	"github.com/fencecheck/fencecheck/lease/private"
	"github.com/fencecheck/fencecheck/targets/process"
)

// ServerName is how events name a private issuer's server.
const ServerName = "zookeeper"

// PrivateIssuer is a ZooKeeper issuer on a standalone server that
// fencecheck starts itself when the run opens it (the spec "zookeeper"):
// Debian's zookeeper package's, run by java as a child process, on a
// free loopback port, with its zoo.cfg and log in the zookeeper folder of
// the run directory. Its tick is half the run's lease TTL, so that a
// lease's session lasts the TTL. Its service can crash, restart and
// freeze the server (private.Service).
type PrivateIssuer struct {
	Poll lease.PollOptions
	// ReadyTimeout bounds the wait for the server to answer, at the
	// start and when it starts again (a JVM takes seconds).
	ReadyTimeout time.Duration
	_            struct{}
}

// NewPrivateIssuer returns the issuer of a private server.
func NewPrivateIssuer(poll lease.PollOptions) *PrivateIssuer {
	return &PrivateIssuer{Poll: poll, ReadyTimeout: time.Minute}
}

// Name implements lease.Issuer.
func (i *PrivateIssuer) Name() string { return "private " + ServerName }

// HasServers reports that the services Open returns have a server the
// issuer faults can crash and freeze.
func (i *PrivateIssuer) HasServers() bool { return true }

// TokenSource implements lease.TokenSource.
func (i *PrivateIssuer) TokenSource() string { return Tokens }

// Open implements lease.Issuer: it starts the server in env.Dir's
// zookeeper folder and serves leases from it. Its data goes in
// zookeeper/data, deleted when the run closes the service; the
// configuration and the log stay.
func (i *PrivateIssuer) Open(ctx context.Context, env lease.Env) (lease.Service, error) {
	if env.Dir == "" {
		return nil, fmt.Errorf("private %s: the run gave no directory for its data", ServerName)
	}
	java, err := FindJava()
	if err != nil {
		return nil, fmt.Errorf("private %s: %w", ServerName, err)
	}
	dir, err := filepath.Abs(filepath.Join(env.Dir, "zookeeper"))
	if err != nil {
		return nil, fmt.Errorf("private %s: %w", ServerName, err)
	}
	data := filepath.Join(dir, "data")
	removeData := func() error { return os.RemoveAll(data) }
	var cfg Config
	child, _, err := private.StartOnFreePort(ctx, func(port int) (*process.Child, error) {
		cfg = Config{Port: port, DataDir: data, Tick: TickFor(env.TTL)}
		conf, err := Write(dir, cfg)
		if err != nil {
			return nil, err
		}
		child := process.NewChild(java.Cmdline(conf), cfg.Addr(), process.Ready(Ready(cfg.Addr())))
		child.Role = "private " + ServerName
		child.StartTimeout = i.ReadyTimeout
		child.SetLogFile(filepath.Join(dir, "zookeeper.log"))
		return child, nil
	})
	if err != nil {
		return nil, fmt.Errorf("private %s: %w", ServerName, errors.Join(err, removeData()))
	}
	st, err := Connect(ctx, "private "+ServerName+" "+cfg.Addr(), []string{cfg.Addr()})
	if err != nil {
		return nil, errors.Join(err, child.Stop(0), removeData())
	}
	svc := private.NewService(lease.NewPolled(env, st, i.Poll),
		private.Server{Name: ServerName, Child: child, Restarted: st.reconnected, RemoveData: removeData})
	return &PrivateService{Service: svc, st: st}, nil
}

// reconnectWait bounds reconnected.
const reconnectWait = 10 * time.Second

// reconnected waits, after a restart of the server, until the store's
// session answers again (its client reconnects on its own, and opens a
// new session if the old one expired meanwhile), so that the fault
// reports the issuer back only when it answers.
func (s *Store) reconnected() {
	deadline := time.Now().Add(reconnectWait)
	for time.Now().Before(deadline) {
		if _, _, err := s.main.conn.Exists("/"); err == nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}
