package embedded

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// TestClusterStartsAndStops: every member of a started cluster serves
// clients, a write through one member is read through another, the logs
// go to files in the data folder, and after Stop no member answers.
func TestClusterStartsAndStops(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	began := time.Now()
	c, err := Start(context.Background(), dir, DefaultOptions())
	require.NoError(t, err)
	t.Logf("3 members ready in %v", time.Since(began).Round(time.Millisecond))
	stopped := false
	defer func() {
		if !stopped {
			c.Stop()
		}
	}()
	require.Len(t, c.Endpoints, 3)

	put := client(t, c.Endpoints[:1])
	_, err = put.Put(context.Background(), "k", "v")
	require.NoError(t, err)
	for i, ep := range c.Endpoints {
		got, err := client(t, []string{ep}).Get(context.Background(), "k")
		require.NoError(t, err, "member %d", i)
		require.Len(t, got.Kvs, 1, "member %d", i)
		assert.Equal(t, "v", string(got.Kvs[0].Value))
		assert.FileExists(t, filepath.Join(dir, memberName(i), "etcd.log"))
	}

	began = time.Now()
	c.Stop()
	stopped = true
	t.Logf("stopped in %v", time.Since(began).Round(time.Millisecond))
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, err = client(t, c.Endpoints[:1]).Get(ctx, "k")
	assert.Error(t, err, "a stopped member answered")
	entries, err := os.ReadDir(filepath.Join(dir, memberName(0), "data"))
	require.NoError(t, err)
	assert.NotEmpty(t, entries, "the member's data is in its folder")
}

// TestStartRefusesNoMembers: zero members is an error, not a default.
func TestStartRefusesNoMembers(t *testing.T) {
	t.Parallel()
	_, err := Start(context.Background(), t.TempDir(), Options{Members: 0, ReadyTimeout: time.Second})
	assert.ErrorContains(t, err, "at least one")
}

func memberName(i int) string { return []string{"m0", "m1", "m2"}[i] }

func client(t *testing.T, endpoints []string) *clientv3.Client {
	t.Helper()
	cli, err := clientv3.New(clientv3.Config{Endpoints: endpoints, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	require.NoError(t, err)
	t.Cleanup(func() { _ = cli.Close() })
	return cli
}
