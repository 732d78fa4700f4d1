package embedded

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/etcdutl/v3/snapshot"
	"go.uber.org/zap"
)

// SnapshotFile is the cluster's snapshot, in its folder beside the
// members' (Snapshot writes it, Restore reads it, RemoveData deletes it).
const SnapshotFile = "snapshot.db"

// RestoreMargin is how far past the revision read just before a restore
// a bumped restore moves the revision: the writes that may still land
// between that read and the members' stop (a few at most, with the
// workers held). etcd's documentation suggests bumping by far more (a
// billion) when the revision at the crash is unknown; here it is read.
const RestoreMargin = 1000

func (c *Cluster) snapshotPath() string { return filepath.Join(c.dir, SnapshotFile) }

// Snapshot saves the cluster's state from one member that serves (the
// etcdutl snapshot-save API), replacing an earlier snapshot, and returns
// the revision it holds.
func (c *Cluster) Snapshot(ctx context.Context) (int64, error) {
	var from string
	for i, ep := range c.Endpoints {
		if c.procs == nil || c.procs[i].serving() {
			from = ep
			break
		}
	}
	if from == "" {
		return 0, errors.New("embedded etcd: snapshot: no member serves")
	}
	path := c.snapshotPath()
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return 0, fmt.Errorf("embedded etcd: snapshot: %w", err)
	}
	m := snapshot.NewV3(zap.NewNop())
	if _, err := m.Save(ctx, clientv3.Config{Endpoints: []string{from}, Logger: zap.NewNop()}, path); err != nil {
		return 0, fmt.Errorf("embedded etcd: save a snapshot from %s: %w", from, err)
	}
	st, err := m.Status(path)
	if err != nil {
		return 0, fmt.Errorf("embedded etcd: read the snapshot %s: %w", path, err)
	}
	return st.Revision, nil
}

// Revision is the cluster's revision now, as a member that serves
// answers it.
func (c *Cluster) Revision(ctx context.Context) (int64, error) {
	cli, err := c.statusClient()
	if err != nil {
		return 0, err
	}
	got, err := cli.Get(ctx, "/fencecheck-revision", clientv3.WithCountOnly())
	if err != nil {
		return 0, fmt.Errorf("embedded etcd: read the revision: %w", err)
	}
	return got.Header.Revision, nil
}

// Restore restores every member from the last snapshot, as an operator
// restores a cluster from a backup with `etcdutl snapshot restore`: it
// SIGKILLs every member, replaces each one's data with the snapshot's
// (same names, peer URLs and cluster token, so the cluster keeps its ID
// and the clients their endpoints) and starts them all again, waiting
// until each serves. bump is etcdutl's --bump-revision: with 0 the
// revision goes back to the snapshot's, which is what an operator who
// forgets it gets; above 0 the revision is moved that far past the
// snapshot's and marked compacted (--mark-compacted, which etcdutl
// requires with a bump), so that watches from before the restore end
// rather than miss what changed. Members must run in processes.
func (c *Cluster) Restore(ctx context.Context, bump uint64) error {
	if c.procs == nil {
		return errors.New("embedded etcd: restore: the members run inside this process, where they cannot be stopped and started again (set Options.Command)")
	}
	path := c.snapshotPath()
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("embedded etcd: restore: no snapshot: %w", err)
	}
	for _, p := range c.procs {
		if err := p.kill(); err != nil && !errors.Is(err, errNotRunning) {
			return fmt.Errorf("embedded etcd: restore: %w", err)
		}
	}
	for _, m := range c.configs {
		if err := os.RemoveAll(m.DataDir); err != nil {
			return fmt.Errorf("embedded etcd: restore: %w", err)
		}
		err := snapshot.NewV3(zap.NewNop()).Restore(snapshot.RestoreConfig{
			SnapshotPath: path, Name: m.Name, OutputDataDir: m.DataDir,
			PeerURLs: []string{m.PeerURL}, InitialCluster: m.InitialCluster, InitialClusterToken: m.ClusterToken,
			RevisionBump: bump, MarkCompacted: bump > 0,
		})
		if err != nil {
			return fmt.Errorf("embedded etcd: restore member %s from %s: %w", m.Name, path, err)
		}
	}
	return c.startAll(ctx)
}
