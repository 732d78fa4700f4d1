package embedded

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
)

// A cluster served to other processes (fencecheck leases serve) outlives
// any one run: it is started on a directory of its own, and other
// processes take its members' addresses as an etcd:// lease spec.

// ErrEarlierData is ServeDir's error for a directory that holds an
// earlier cluster's data: its members would not join a cluster on new
// ports.
var ErrEarlierData = errors.New("embedded: the directory holds an earlier cluster's data")

// ServeDir returns the directory for the members of a served cluster, and
// what cleans it once the cluster stopped: with dir empty, a new
// temporary directory, removed whole; else dir, whose members' data is
// removed and logs are kept (nil: the cluster never started, nothing to
// remove).
func ServeDir(dir string) (string, func(*Cluster) error, error) {
	if dir == "" {
		tmp, err := os.MkdirTemp("", "fencecheck-leases-")
		if err != nil {
			return "", nil, fmt.Errorf("create a directory for the etcd members: %w", err)
		}
		return tmp, func(*Cluster) error { return os.RemoveAll(tmp) }, nil
	}
	if data := filepath.Join(dir, "m0", "data"); exists(data) {
		return "", nil, fmt.Errorf("%s: holds an earlier cluster's data (%s); remove it or give another directory: %w", dir, data, ErrEarlierData)
	}
	return dir, func(c *Cluster) error {
		if c == nil {
			return nil
		}
		return c.RemoveData()
	}, nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// Addrs are the members' client addresses, host:port each: what an
// etcd:// lease spec lists.
func (c *Cluster) Addrs() ([]string, error) {
	addrs := make([]string, len(c.Endpoints))
	for i, u := range c.Endpoints {
		parsed, err := url.Parse(u)
		if err != nil || parsed.Host == "" {
			return nil, fmt.Errorf("embedded etcd: member %d has no client address in %q", i, u)
		}
		addrs[i] = parsed.Host
	}
	return addrs, nil
}

// Serve starts a cluster of o.Members members in dir (as ServeDir
// gives it: "" for a temporary one), calls ready with the members'
// client addresses and the directory once every member serves, serves
// until ctx is done, then stops the members and cleans the directory. An
// error of ready stops the cluster at once, and is Serve's.
func Serve(ctx context.Context, dir string, o Options, ready func(addrs []string, dir string) error) (err error) {
	dir, cleanup, err := ServeDir(dir)
	if err != nil {
		return err
	}
	c, err := Start(ctx, dir, o)
	if err != nil {
		return errors.Join(err, cleanup(nil))
	}
	defer func() {
		c.Stop()
		err = errors.Join(err, cleanup(c))
	}()
	addrs, err := c.Addrs()
	if err != nil {
		return err
	}
	if err := ready(addrs, dir); err != nil {
		return err
	}
	<-ctx.Done()
	return nil
}
