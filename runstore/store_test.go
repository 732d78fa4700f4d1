package runstore

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCreateAndList(t *testing.T) {
	t.Parallel()
	store := t.TempDir()
	at := time.Date(2026, 12, 3, 15, 4, 5, 6e6, time.UTC)
	first, err := Create(store, "memory-fenced", at)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(store, "memory-fenced", "20261203T150405.006Z"), first)
	second, err := Create(store, "memory-fenced", at) // the same millisecond
	require.NoError(t, err)
	assert.Equal(t, first+"-1", second, "quick successive runs do not collide")
	latest, err := os.Readlink(filepath.Join(store, Latest))
	require.NoError(t, err)
	assert.Equal(t, filepath.Join("memory-fenced", "20261203T150405.006Z-1"), latest)

	require.NoError(t, os.MkdirAll(filepath.Join(store, "..hidden", "x"), 0o755))
	root, err := os.OpenRoot(store)
	require.NoError(t, err)
	defer root.Close()
	entries := List(root)
	require.Len(t, entries, 2, "invalid names and the latest link are not runs")
	for _, e := range entries {
		assert.Equal(t, "memory-fenced", e.Name)
		assert.Equal(t, at, e.Started)
		assert.Equal(t, e.Stamp == "20261203T150405.006Z-1", e.Latest)
	}
}

func TestNameAndComponents(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ target, want string }{
		{"memory://check-then-set", "memory-check-then-set"},
		{"http://127.0.0.1:8787", "http-127.0.0.1-8787"},
		{"", "run"},
	} {
		assert.Equal(t, tc.want, Name(tc.target))
	}
	for _, s := range []string{"r0", "20261203T150405.006Z-1", "a.b_c-d"} {
		assert.True(t, ValidComponent(s), s)
	}
	for _, s := range []string{"", ".", "..", ".x", "a/b", Latest, "a b"} {
		assert.False(t, ValidComponent(s), s)
	}
	assert.True(t, Started("not a stamp").IsZero())
}
