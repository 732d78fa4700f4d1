// Package embedded runs an etcd cluster on loopback, so that a run can
// take its tokens from real etcd with no install step: `--leases etcd`.
// Its members run inside the fencecheck process, or each in a process of
// its own (Options.Command), which the issuer faults can then crash,
// start again and freeze (members.go).
package embedded

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"

	"github.com/fencecheck/fencecheck/internal/spawn"
)

// Options say how to start a cluster.
type Options struct {
	// Members is the number of members; a majority of them must start.
	Members int
	// ReadyTimeout bounds the wait for a member to join the cluster, at
	// the start and when it starts again.
	ReadyTimeout time.Duration
	// Command, when set, runs each member in a process of its own: the
	// program and its arguments, to which the member's configuration
	// file is appended (a program that calls ServeMember with it, such
	// as `fencecheck leases member`). Such members can be crashed
	// (SIGKILL), started again and frozen (SIGSTOP), which the issuer
	// faults need. Nil runs the members inside this process.
	Command []string
	_       struct{}
}

// DefaultOptions is a three-member cluster inside this process, each
// member ready within 30 s.
func DefaultOptions() Options {
	return Options{Members: 3, ReadyTimeout: 30 * time.Second}
}

// Cluster is a running embedded cluster.
type Cluster struct {
	dir     string // the members' folders are in it, and a snapshot (restore.go)
	configs []MemberConfig
	inProc  []*embed.Etcd // the members, when they run in this process
	procs   []*process    // the members, when they run in processes
	stop    sync.Once

	statusMu sync.Mutex
	status   *clientv3.Client // for Leader, once asked
	// Endpoints are the members' client URLs.
	Endpoints []string
}

// Start starts opts.Members members on free loopback ports, with their
// data and their logs (etcd.log, not stderr; and a member process's
// output in member.log) in member folders under dir, and returns once
// every member serves clients.
func Start(ctx context.Context, dir string, opts Options) (*Cluster, error) {
	if opts.Members < 1 {
		return nil, fmt.Errorf("embedded etcd: %d members: need at least one", opts.Members)
	}
	if opts.Command != nil && len(opts.Command) == 0 {
		return nil, errors.New("embedded etcd: an empty member command (nil runs the members in this process)")
	}
	cfgs, err := configs(dir, opts.Members)
	if err != nil {
		return nil, err
	}
	c := &Cluster{dir: dir, configs: cfgs}
	for _, cfg := range cfgs {
		c.Endpoints = append(c.Endpoints, cfg.ClientURL)
	}
	if opts.Command == nil {
		err = c.startInProcess(ctx, opts.ReadyTimeout)
	} else {
		err = c.startProcesses(ctx, dir, opts)
	}
	if err != nil {
		c.Stop() // the data stays, beside the failed member's log
		return nil, err
	}
	return c, nil
}

// startInProcess starts the members in this process.
func (c *Cluster) startInProcess(ctx context.Context, timeout time.Duration) error {
	for _, m := range c.configs {
		cfg, err := m.embed()
		if err != nil {
			return fmt.Errorf("embedded etcd: %w", err)
		}
		e, err := embed.StartEtcd(cfg)
		if err != nil {
			return fmt.Errorf("embedded etcd: start member %s: %w (its log is %s)", m.Name, err, m.LogFile)
		}
		c.inProc = append(c.inProc, e)
	}
	return c.ready(ctx, timeout)
}

// startProcesses starts the members as processes, all at once.
func (c *Cluster) startProcesses(ctx context.Context, dir string, opts Options) error {
	for _, m := range c.configs {
		m.ReadyFD = 3 // the pipe process.spawn passes
		mdir := filepath.Join(dir, m.Name)
		path, err := m.write(mdir)
		if err != nil {
			return err
		}
		c.procs = append(c.procs, &process{cfg: m, configPath: path, command: opts.Command, dir: mdir, readyTimeout: opts.ReadyTimeout})
	}
	return c.startAll(ctx)
}

// startAll starts every member process at once and waits until each
// serves: members that start together become ready once a quorum has
// started. The first to fail stops the wait of the others.
func (c *Cluster) startAll(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var first error
	var once sync.Once
	var wg sync.WaitGroup
	for _, p := range c.procs {
		wg.Go(func() {
			if err := p.start(ctx); err != nil {
				once.Do(func() { first = fmt.Errorf("embedded etcd: %w", err) })
				cancel()
			}
		})
	}
	wg.Wait()
	return first
}

// ready waits until every member in this process serves clients (each
// needs a quorum for that), a member fails, or the timeout passes.
func (c *Cluster) ready(ctx context.Context, timeout time.Duration) error {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for _, e := range c.inProc {
		select {
		case <-e.Server.ReadyNotify():
		case err := <-e.Err():
			return fmt.Errorf("embedded etcd: member %s failed: %w", e.Config().Name, err)
		case <-timer.C:
			return fmt.Errorf("embedded etcd: member %s not ready after %v", e.Config().Name, timeout)
		case <-ctx.Done():
			return fmt.Errorf("embedded etcd: %w", ctx.Err())
		}
	}
	return nil
}

// Stop stops every member and waits until each is gone. Members in this
// process are closed one after another (stopped together, three members
// took longer on this machine: 7 s against 2 s); member processes are
// SIGKILLed, since their data is thrown away. Stop may be called again.
func (c *Cluster) Stop() {
	c.stop.Do(func() {
		c.statusMu.Lock()
		if c.status != nil {
			_ = c.status.Close()
		}
		c.statusMu.Unlock()
		for _, e := range c.inProc {
			e.Close()
		}
		for _, p := range c.procs {
			_ = p.stop() // Err reports a member that exited on its own
		}
	})
}

// Err says which member processes exited on their own, and where their
// logs are; nil when none did. (A member that fencecheck killed does not
// count.)
func (c *Cluster) Err() error {
	var errs []error
	for _, p := range c.procs {
		p.mu.Lock()
		errs = append(errs, p.failed)
		p.mu.Unlock()
	}
	return errors.Join(errs...)
}

// RemoveData deletes the members' data folders (their logs stay): a
// member preallocates 64 MB of write-ahead log, too much to keep in every
// run directory for keys that were deleted at the end of the run anyway.
// Call it after Stop.
func (c *Cluster) RemoveData() error {
	var errs []error
	for _, m := range c.configs {
		errs = append(errs, os.RemoveAll(m.DataDir))
	}
	errs = append(errs, os.RemoveAll(c.snapshotPath()))
	return errors.Join(errs...)
}

// configs are the members' configurations: a static initial cluster on
// ports free when asked (another process could take one in between; the
// start then fails with "address already in use").
func configs(dir string, n int) ([]MemberConfig, error) {
	ports, err := freePorts(2 * n)
	if err != nil {
		return nil, err
	}
	token := "fencecheck-" + filepath.Base(dir)
	var cfgs []MemberConfig
	var initial []string
	for i := range n {
		name := fmt.Sprintf("m%d", i)
		mdir := filepath.Join(dir, name)
		if err := os.MkdirAll(mdir, 0o700); err != nil {
			return nil, fmt.Errorf("embedded etcd: %w", err)
		}
		peer, client := loopback(ports[2*i]), loopback(ports[2*i+1])
		cfgs = append(cfgs, MemberConfig{Name: name, DataDir: filepath.Join(mdir, "data"), LogFile: filepath.Join(mdir, "etcd.log"),
			PeerURL: peer.String(), ClientURL: client.String(), ClusterToken: token})
		initial = append(initial, fmt.Sprintf("%s=%s", name, peer.String()))
	}
	for i := range cfgs {
		cfgs[i].InitialCluster = strings.Join(initial, ",")
	}
	return cfgs, nil
}

func loopback(port int) url.URL {
	return url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", port)}
}

// freePorts returns n distinct loopback ports for the members: see
// spawn.FreePort, the one place ports are chosen.
func freePorts(n int) ([]int, error) {
	ports, err := spawn.FreePorts(n)
	if err != nil {
		return nil, fmt.Errorf("embedded etcd: %w", err)
	}
	return ports, nil
}
