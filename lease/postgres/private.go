package pglease

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
	"github.com/jackc/pgx/v5"

	"github.com/fencecheck/fencecheck/internal/spawn"
	"github.com/fencecheck/fencecheck/lease"
	"github.com/fencecheck/fencecheck/lease/private"
	"github.com/fencecheck/fencecheck/targets/process"
)

// ServerName is how events name a private cluster's server.
const ServerName = "postgres"

// PrivateIssuer is a PostgreSQL issuer on a cluster that fencecheck makes
// with initdb and starts itself when the run opens it (the spec
// "postgres", or "postgres?SETTINGS"), on a free loopback port, with its
// log in the postgres folder of the run directory. Its service can
// crash, restart and freeze the server (private.Service).
//
// PostgreSQL refuses to run as root: when fencecheck runs as root, the
// cluster runs as the postgres system user, with its data in the run
// directory when that user can reach it, else in a folder of its own
// under the system's temporary folder.
type PrivateIssuer struct {
	Settings Settings
	Poll     lease.PollOptions
	// ReadyTimeout bounds the wait for the server to answer, at the
	// start and when it starts again (after a crash, once it recovered).
	ReadyTimeout time.Duration
	_            struct{}
}

// NewPrivateIssuer returns the issuer of a private cluster with settings.
func NewPrivateIssuer(settings Settings, poll lease.PollOptions) *PrivateIssuer {
	return &PrivateIssuer{Settings: settings, Poll: poll, ReadyTimeout: 60 * time.Second}
}

// Name implements lease.Issuer: "private PostgreSQL cluster
// (synchronous_commit on, fsync on)".
func (i *PrivateIssuer) Name() string {
	return fmt.Sprintf("private PostgreSQL cluster (%s)", i.Settings)
}

// HasServers reports that the services Open returns have a server the
// issuer faults can crash and freeze.
func (i *PrivateIssuer) HasServers() bool { return true }

// Open implements lease.Issuer: it makes the cluster, starts it and
// serves leases from it. postgres.log (initdb's output and the server's
// log) and settings.conf (what fencecheck added to postgresql.conf) stay
// in the run directory's postgres folder; the data is deleted when the
// run closes the service.
func (i *PrivateIssuer) Open(ctx context.Context, env lease.Env) (lease.Service, error) {
	fail := func(err error) error { return fmt.Errorf("private PostgreSQL cluster: %w", err) }
	if env.Dir == "" {
		return nil, fail(errors.New("the run gave no directory for its data"))
	}
	initdb, postgres, err := binaries(ctx)
	if err != nil {
		return nil, fail(err)
	}
	cred, err := serverUser()
	if err != nil {
		return nil, fail(err)
	}
	dir, err := filepath.Abs(filepath.Join(env.Dir, "postgres"))
	if err == nil {
		err = os.MkdirAll(dir, 0o755)
	}
	if err != nil {
		return nil, fail(err)
	}
	data, remove, err := dataDir(dir, cred)
	if err != nil {
		return nil, fail(err)
	}
	removeData := func() error { return os.RemoveAll(remove) }
	if err := i.initdb(ctx, initdb, data, dir, cred); err != nil {
		return nil, fail(errors.Join(err, removeData()))
	}
	var dsn string
	child, port, err := private.StartOnFreePort(ctx, func(port int) (*process.Child, error) {
		// A later port line in postgresql.conf overrides an earlier one,
		// so a port drawn again is simply appended.
		if err := i.writeSettings(data, dir, port); err != nil {
			return nil, err
		}
		var child *process.Child
		child, dsn = i.serverChild(postgres, data, port, ServerName, filepath.Join(dir, "postgres.log"), cred)
		return child, nil
	})
	if err != nil {
		return nil, fail(errors.Join(err, removeData()))
	}
	if i.Settings.Standby != "" {
		primary := &node{name: ServerName, child: child, dsn: dsn, data: data, removeData: removeData}
		svc, err := i.openReplicated(ctx, env, primary, cluster{bin: filepath.Dir(initdb), postgres: postgres, cred: cred, dir: dir, port: port})
		if err != nil {
			return nil, err
		}
		return svc, nil
	}
	store, err := Connect(ctx, dsn)
	if err != nil {
		return nil, errors.Join(err, child.Stop(0), removeData())
	}
	return private.NewService(lease.NewPolled(env, store, i.Poll), private.Server{Name: ServerName, Child: child,
		Restarted: func() { store.db().Reset() }, RemoveData: removeData}), nil
}

// serverChild is the Child that runs the server program postgres on
// data, on port, as the user of cred, with its output in logPath, and
// the DSN it answers on; role names it in messages.
func (i *PrivateIssuer) serverChild(postgres, data string, port int, role, logPath string, cred *spawn.Credential) (*process.Child, string) {
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	dsn := fmt.Sprintf("postgres://postgres@%s/postgres?sslmode=disable&synchronous_commit=%s", addr, i.Settings.SynchronousCommit)
	child := process.NewChild(shellescape.QuoteCommand([]string{postgres, "-D", data}), addr, connects(dsn))
	child.Role = "private " + role
	child.Credential = cred
	child.Tree = true // each server process starts a session of its own
	child.StartTimeout = i.ReadyTimeout
	child.SetLogFile(logPath)
	return child, dsn
}

// initdb makes the cluster in data, as the user of cred, with its output
// in the log. The superuser is postgres, with trust authentication: the
// server listens on loopback only, for one run. --no-sync skips flushing
// the new cluster to disk, which only a machine crash, never a crash of
// the server, could need.
func (i *PrivateIssuer) initdb(ctx context.Context, initdb, data, dir string, cred *spawn.Credential) error {
	log, err := os.OpenFile(filepath.Join(dir, "postgres.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer log.Close()
	fmt.Fprintf(log, "--- fencecheck: initdb of the cluster in %s at %s\n", data, time.Now().UTC().Format(time.RFC3339Nano))
	cmd := exec.CommandContext(ctx, initdb, "-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions")
	cmd.Stdout, cmd.Stderr, cmd.Dir = log, log, filepath.Dir(data)
	if cred != nil {
		cmd.SysProcAttr = spawn.AsUser(cred)
	}
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("initdb: %w (its output is in %s)", err, log.Name())
	}
	return nil
}

// writeSettings adds fencecheck's settings, on port, to the cluster's
// postgresql.conf, and writes a copy of them to dir/settings.conf.
func (i *PrivateIssuer) writeSettings(data, dir string, port int) error {
	conf := i.Settings.config(port)
	if err := os.WriteFile(filepath.Join(dir, "settings.conf"), []byte(conf), 0o644); err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(data, "postgresql.conf"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(conf)
	return errors.Join(err, f.Close())
}

// connects is ready once a session on dsn answers a query: a server that
// still starts up or recovers from a crash refuses connections until
// then.
func connects(dsn string) process.Ready {
	return func(ctx context.Context) error {
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			return err
		}
		defer conn.Close(context.Background())
		return conn.Ping(ctx)
	}
}

// TokenSource implements lease.TokenSource.
func (i *PrivateIssuer) TokenSource() string { return lease.PostgresTokens() }
