package embedded

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// TestProcessClusterRestore: a cluster restored from a snapshot forgets
// what was written after it, keeps its ID (a client made before the
// restore reads and writes on), and its revision goes back to the
// snapshot's, so a key created after the restore has a create revision
// below one created before it: the rewind of etcd's fencing tokens.
// Restored with a revision bump, the revision is past every revision
// before the restore, and older revisions are compacted away. RemoveData
// deletes the snapshot too.
func TestProcessClusterRestore(t *testing.T) {
	t.Parallel()
	for _, bump := range []uint64{0, RestoreMargin} {
		t.Run(fmt.Sprintf("bump-%d", bump), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			c := startProcesses(t, dir)
			ctx := context.Background()
			cli := client(t, c.Endpoints)
			_, err := cli.Put(ctx, "before", "1")
			require.NoError(t, err)
			at, err := c.Snapshot(ctx)
			require.NoError(t, err)
			var lastRev int64
			for i := range 20 {
				put, err := cli.Put(ctx, fmt.Sprintf("after-%d", i), "2")
				require.NoError(t, err)
				lastRev = put.Header.Revision
			}
			require.NoError(t, c.Restore(ctx, bump))
			got, err := cli.Get(ctx, "after-0")
			require.NoError(t, err, "a client of the cluster before the restore goes on")
			assert.Empty(t, got.Kvs, "written after the snapshot: gone")
			got, err = cli.Get(ctx, "before")
			require.NoError(t, err)
			assert.Len(t, got.Kvs, 1, "written before the snapshot: kept")
			put, err := cli.Put(ctx, "new", "3")
			require.NoError(t, err)
			t.Logf("snapshot at revision %d; revision %d before the restore, a put after it at %d", at, lastRev, put.Header.Revision)
			if bump == 0 {
				assert.Less(t, put.Header.Revision, lastRev, "the revision went back")
				assert.Equal(t, at+1, put.Header.Revision)
				return
			}
			assert.Greater(t, put.Header.Revision, lastRev, "the revision is past every earlier one")
			_, err = cli.Get(ctx, "before", clientv3.WithRev(lastRev))
			assert.ErrorContains(t, err, "compacted", "revisions before the restore are compacted")
			c.Stop()
			require.NoError(t, c.RemoveData())
			assert.NoFileExists(t, filepath.Join(dir, SnapshotFile))
		})
	}
}
