package redislease

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"al.essio.dev/pkg/shellescape"
	"github.com/redis/go-redis/v9"

	"github.com/fencecheck/fencecheck/lease"
	"github.com/fencecheck/fencecheck/lease/private"
	"github.com/fencecheck/fencecheck/targets/process"
)

// ServerName is how events name a private issuer's redis-server.
const ServerName = "redis-server"

// PrivateIssuer is a Redis issuer on a redis-server that fencecheck
// starts itself when the run opens it (the spec "redis", or
// "redis?SETTINGS"), on a free loopback port, with its configuration,
// data and log in the redis folder of the run directory. Its service can
// crash, restart and freeze the server (private.Service). With
// Settings.Replicas it starts a primary and a replica instead, whose
// service can also fail over (Replicated).
type PrivateIssuer struct {
	Settings Settings
	Poll     lease.PollOptions
	// ReadyTimeout bounds the wait for the server to answer, at the
	// start and when it starts again.
	ReadyTimeout time.Duration
	_            struct{}
}

// NewPrivateIssuer returns the issuer of a private redis-server with
// settings.
func NewPrivateIssuer(settings Settings, poll lease.PollOptions) *PrivateIssuer {
	return &PrivateIssuer{Settings: settings, Poll: poll, ReadyTimeout: 30 * time.Second}
}

// Name implements lease.Issuer: "private redis-server (RDB snapshots,
// appendonly no)".
func (i *PrivateIssuer) Name() string { return fmt.Sprintf("private %s (%s)", ServerName, i.Settings) }

// HasServers reports that the services Open returns have a server the
// issuer faults can crash and freeze.
func (i *PrivateIssuer) HasServers() bool { return true }

// Open implements lease.Issuer: it starts the server in env.Dir's redis
// folder and serves leases from it. Its data (dump.rdb, appendonlydir)
// goes in redis/data, deleted when the run closes the service;
// redis.conf and redis.log stay.
func (i *PrivateIssuer) Open(ctx context.Context, env lease.Env) (lease.Service, error) {
	if env.Dir == "" {
		return nil, fmt.Errorf("private %s: the run gave no directory for its data", ServerName)
	}
	bin, err := exec.LookPath(ServerName)
	if err != nil {
		return nil, fmt.Errorf("private %s: %w: install Redis's server (Debian: the redis-server package), or give a server's address (redis://HOST:PORT)", ServerName, err)
	}
	dir := filepath.Join(env.Dir, "redis")
	if i.Settings.Replicas > 0 {
		return i.openReplicated(ctx, env, bin, dir)
	}
	data := filepath.Join(dir, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		return nil, fmt.Errorf("private %s: %w", ServerName, err)
	}
	data, err = filepath.Abs(data)
	if err != nil {
		return nil, fmt.Errorf("private %s: %w", ServerName, err)
	}
	removeData := func() error { return os.RemoveAll(data) }
	conf := filepath.Join(dir, "redis.conf")
	var clock *fakeClock
	var clockEnv []string // the command's prefix that runs it on clock
	child, port, err := private.StartOnFreePort(ctx, func(port int) (*process.Child, error) {
		if err := os.WriteFile(conf, []byte(i.Settings.config(port, data, "")), 0o644); err != nil {
			return nil, err
		}
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		if env.ClockJumps {
			if clock, clockEnv, err = newFakeClock(dir, addr); err != nil {
				return nil, err
			}
		}
		child := process.NewChild(shellescape.QuoteCommand(append(clockEnv, bin, conf)), addr, answers(addr))
		child.Role = "private " + ServerName
		child.StartTimeout = i.ReadyTimeout
		child.SetLogFile(filepath.Join(dir, "redis.log"))
		return child, nil
	})
	if err != nil {
		return nil, fmt.Errorf("private %s: %w", ServerName, errors.Join(err, removeData()))
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	store, err := Connect(ctx, "redis://"+addr+"/0")
	if err != nil {
		return nil, errors.Join(err, child.Stop(0), removeData())
	}
	svc := private.NewService(lease.NewPolled(env, store, i.Poll),
		private.Server{Name: ServerName, Child: child, RemoveData: removeData})
	if clock != nil {
		return &clockService{Service: svc, clock: clock}, nil
	}
	return svc, nil
}

// answers is ready once the server at addr serves reads: a server still
// loading its data after a restart answers LOADING, not ready yet.
func answers(addr string) process.Ready {
	return func(ctx context.Context) error {
		c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, PoolSize: 1})
		defer c.Close()
		return c.Exists(ctx, "fencecheck:ready").Err()
	}
}

// TokenSource implements lease.TokenSource.
func (i *PrivateIssuer) TokenSource() string { return lease.RedisTokens() }
