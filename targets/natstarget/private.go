package natstarget

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/fencecheck/fencecheck/internal/natsserver"
	"github.com/fencecheck/fencecheck/internal/spawn"
	"github.com/fencecheck/fencecheck/internal/unique"
	"github.com/fencecheck/fencecheck/logscan"
	"github.com/fencecheck/fencecheck/targets"
	"github.com/fencecheck/fencecheck/targets/process"
)

// StoreDir is the private server's JetStream store in the run directory.
const StoreDir = "nats-store"

// Private is a NATS target on a private server, nats://embedded: a
// server of the nats-server/v2 module that Options.Command runs as a
// child process, on a free loopback port, with its store in the run
// directory (StoreDir; a temporary directory without one). The receiver
// faults act on that process: the kill fault crashes it with SIGKILL and
// starts it again on the same store, and the client reconnects.
//
// nats://embedded?sync=always sets the server's sync_interval to always,
// so that it fsyncs every write before acknowledging it. Without it a
// SIGKILL still loses no acknowledged write (they are in the operating
// system's page cache); a power cut would, and fencecheck does not cut
// power. See docs/kv-stores.md for what a run measured.
type Private struct {
	*Target
	sync   bool
	tmp    string // the configuration, and the store without a run directory
	runDir string
	port   int
	child  *process.Child
}

// OpenPrivate returns the private server spec names (nats://embedded,
// nats://embedded?sync=always), not started yet: Setup starts it. Its
// command is o.Command.
func OpenPrivate(spec string, o Options) (*Private, error) {
	if !IsEmbedded(spec) {
		return nil, fmt.Errorf("open %s: not the private server (want nats://%s)", spec, EmbeddedHost)
	}
	u, err := url.Parse(spec)
	if err != nil {
		return nil, fmt.Errorf("open %s: not a URL", spec)
	}
	q := u.Query()
	sync := q.Get("sync")
	q.Del("sync")
	switch {
	case len(q) > 0 || (u.Path != "" && u.Path != "/") || u.User != nil:
		return nil, fmt.Errorf("open %s: want nats://%s, with at most the parameter sync=always", spec, EmbeddedHost)
	case sync != "" && sync != "always":
		return nil, fmt.Errorf("open %s: sync=%q: the only setting is sync=always (fsync every write before acknowledging it)", spec, sync)
	case len(o.Command) == 0:
		return nil, fmt.Errorf("open %s: no command runs the private server (Options.Command)", spec)
	}
	port, err := spawn.FreePort()
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", spec, err)
	}
	cfg := natsserver.Config{Port: port}
	t, err := newTarget(cfg.URL(), o)
	if err != nil {
		return nil, err
	}
	t.name = spec
	p := &Private{Target: t, sync: sync == "always", port: port,
		tmp: filepath.Join(os.TempDir(), "fencecheck-nats-"+unique.Hex(6))}
	p.child = process.NewChild(natsserver.Cmdline(o.Command, filepath.Join(p.tmp, natsserver.ConfigFile)), cfg.Addr(), process.Ready(natsserver.Ready(cfg.URL())))
	p.child.Role = "private NATS server"
	return p, nil
}

// config is the server's configuration.
func (p *Private) config() natsserver.Config {
	store := filepath.Join(p.tmp, StoreDir)
	if p.runDir != "" {
		store = filepath.Join(p.runDir, StoreDir)
	}
	return natsserver.Config{Port: p.port, StoreDir: store, Sync: p.sync}
}

// UseRunDir implements targets.RunDirUser: the server keeps its store
// there, and its log is the run's receiver.log.
func (p *Private) UseRunDir(dir string) {
	p.runDir = dir
	p.child.SetLogDir(dir)
}

// Setup starts the server, connects and creates the run's bucket.
func (p *Private) Setup(ctx context.Context) error {
	if _, err := natsserver.Write(p.tmp, p.config()); err != nil {
		return err
	}
	if err := p.child.Start(ctx); err != nil {
		return fmt.Errorf("private NATS server: %w", err)
	}
	if err := p.connect(ctx); err != nil {
		return err
	}
	return p.Target.Setup(ctx)
}

// Teardown deletes the bucket, stops the server and removes the
// temporary directory; the store in the run directory stays, as the
// evidence of what the server kept.
func (p *Private) Teardown(ctx context.Context) error {
	errs := []error{p.Target.Teardown(ctx)}
	p.Target.Close()
	if err := p.child.Stop(5 * time.Second); err != nil {
		errs = append(errs, fmt.Errorf("stop the private NATS server (it may still be running): %w", err))
	}
	if err := os.RemoveAll(p.tmp); err != nil {
		errs = append(errs, fmt.Errorf("remove %s: %w", p.tmp, err))
	}
	return errors.Join(errs...)
}

// Close closes the client and stops the server if it still runs.
func (p *Private) Close() error {
	p.Target.Close()
	err := p.child.Stop(5 * time.Second)
	return errors.Join(err, os.RemoveAll(p.tmp))
}

// Kill implements nemesis.Process: SIGKILL to the server.
func (p *Private) Kill() error { return p.child.Kill() }

// Start implements nemesis.Process: it starts the server again on its
// store and waits until the client has reconnected.
func (p *Private) Start(ctx context.Context) error {
	if err := p.child.Start(ctx); err != nil {
		return err
	}
	return p.reconnected(ctx)
}

// Freeze implements nemesis.Process: SIGSTOP to the server.
func (p *Private) Freeze() error { return p.child.Freeze() }

// Thaw implements nemesis.Process: SIGCONT to the server.
func (p *Private) Thaw() error { return p.child.Thaw() }

// Restart implements verify.Restarter: SIGKILL, then start again.
func (p *Private) Restart(ctx context.Context) error {
	if err := p.Kill(); err != nil {
		return err
	}
	return p.Start(ctx)
}

// Down says why the server is not running now, nil while it runs.
func (p *Private) Down() error { return p.child.Down() }

// StartAgain starts the server again after it exited on its own.
func (p *Private) StartAgain(ctx context.Context) error {
	if err := p.child.StartAgain(ctx); err != nil {
		return err
	}
	return p.reconnected(ctx)
}

// Err says how the server exited on its own, if it did.
func (p *Private) Err() error { return p.child.Err() }

// Failed is closed when the server exits on its own.
func (p *Private) Failed() <-chan struct{} { return p.child.Failed() }

// ScanLog reads the server's log for the signs of a bug.
func (p *Private) ScanLog() (logscan.Report, error) { return p.child.ScanLog() }

// reconnectPoll is how often reconnected looks at the client.
const reconnectPoll = 10 * time.Millisecond

// reconnected waits until the client is connected again and a round
// trip to the server succeeds, bounded by the target's timeout: the
// fault that restarted the server says it answers only then.
func (p *Private) reconnected(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	for {
		if p.nc.Status() == nats.CONNECTED && p.nc.FlushWithContext(ctx) == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the client did not reconnect to the private NATS server: %w", ctx.Err())
		case <-time.After(reconnectPoll):
		}
	}
}

// The interfaces the harness, the faults and verify look for.
var (
	_ targets.Target     = (*Private)(nil)
	_ targets.Setupper   = (*Private)(nil)
	_ targets.Teardowner = (*Private)(nil)
	_ targets.RunDirUser = (*Private)(nil)
	_ targets.Failing    = (*Private)(nil)
	_ targets.LogScanner = (*Private)(nil)
)
