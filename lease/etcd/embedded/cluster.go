// Package embedded runs an etcd cluster inside the fencecheck process, on
// loopback, so that a run can take its tokens from real etcd with no
// install step: `--leases etcd`.
package embedded

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
)

// Options say how to start a cluster.
type Options struct {
	// Members is the number of members; a majority of them must start.
	Members int
	// ReadyTimeout bounds the wait for every member to join the cluster.
	ReadyTimeout time.Duration
	_            struct{}
}

// DefaultOptions is a three-member cluster, ready within 30 s.
func DefaultOptions() Options {
	return Options{Members: 3, ReadyTimeout: 30 * time.Second}
}

// Cluster is a running embedded cluster.
type Cluster struct {
	members []*embed.Etcd
	// Endpoints are the members' client URLs.
	Endpoints []string
}

// Start starts opts.Members members on free loopback ports, with their
// data and their logs (etcd.log, not stderr) in member folders under dir,
// and returns once every member serves clients.
func Start(ctx context.Context, dir string, opts Options) (*Cluster, error) {
	if opts.Members < 1 {
		return nil, fmt.Errorf("embedded etcd: %d members: need at least one", opts.Members)
	}
	cfgs, err := configs(dir, opts.Members)
	if err != nil {
		return nil, err
	}
	c := &Cluster{}
	for _, cfg := range cfgs {
		e, err := embed.StartEtcd(cfg)
		if err != nil {
			c.Stop() // the data stays, beside the failed member's log
			return nil, fmt.Errorf("embedded etcd: start member %s: %w (its log is %s)", cfg.Name, err, cfg.LogOutputs[0])
		}
		c.members = append(c.members, e)
		c.Endpoints = append(c.Endpoints, cfg.AdvertiseClientUrls[0].String())
	}
	if err := c.ready(ctx, opts.ReadyTimeout); err != nil {
		c.Stop()
		return nil, err
	}
	return c, nil
}

// ready waits until every member serves clients (each needs a quorum for
// that), a member fails, or the timeout passes.
func (c *Cluster) ready(ctx context.Context, timeout time.Duration) error {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for _, e := range c.members {
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

// Stop stops every member, one after another, and waits until each has
// closed its listeners. (Stopped together, three members took longer on
// this machine: 7 s against 2 s.)
func (c *Cluster) Stop() {
	for _, e := range c.members {
		e.Close()
	}
}

// RemoveData deletes the members' data folders (their logs stay): a
// member preallocates 64 MB of write-ahead log, too much to keep in every
// run directory for keys that were deleted at the end of the run anyway.
// Call it after Stop.
func (c *Cluster) RemoveData() error {
	var errs []error
	for _, e := range c.members {
		errs = append(errs, os.RemoveAll(e.Config().Dir))
	}
	return errors.Join(errs...)
}

// configs are the members' configurations: a static initial cluster on
// ports free when asked (another process could take one in between; the
// start then fails with "address already in use").
func configs(dir string, n int) ([]*embed.Config, error) {
	ports, err := freePorts(2 * n)
	if err != nil {
		return nil, err
	}
	token := filepath.Base(dir)
	var cfgs []*embed.Config
	var initial []string
	for i := range n {
		name := fmt.Sprintf("m%d", i)
		mdir := filepath.Join(dir, name)
		if err := os.MkdirAll(mdir, 0o700); err != nil {
			return nil, fmt.Errorf("embedded etcd: %w", err)
		}
		cfg := embed.NewConfig()
		cfg.Name, cfg.Dir = name, filepath.Join(mdir, "data")
		peer, client := loopback(ports[2*i]), loopback(ports[2*i+1])
		cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{peer}, []url.URL{peer}
		cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{client}, []url.URL{client}
		cfg.InitialClusterToken, cfg.ClusterState = "fencecheck-"+token, embed.ClusterStateFlagNew
		cfg.Logger, cfg.LogLevel, cfg.LogOutputs = "zap", "warn", []string{filepath.Join(mdir, "etcd.log")}
		initial = append(initial, fmt.Sprintf("%s=%s", name, peer.String()))
		cfgs = append(cfgs, cfg)
	}
	for _, cfg := range cfgs {
		cfg.InitialCluster = strings.Join(initial, ",")
	}
	return cfgs, nil
}

func loopback(port int) url.URL {
	return url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", port)}
}

// freePorts returns n distinct loopback ports that were free: all are held
// open together, so none repeats.
func freePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			_ = l.Close()
		}
	}()
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("embedded etcd: find a free port: %w", err)
		}
		ls = append(ls, l)
		addr, ok := l.Addr().(*net.TCPAddr)
		if !ok {
			return nil, fmt.Errorf("embedded etcd: listener address %v is not TCP", l.Addr())
		}
		ports = append(ports, addr.Port)
	}
	return ports, nil
}
