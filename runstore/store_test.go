package runstore

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
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

// TestCreateRefusesNamesOutsideItsFolder: a run name is one plain path
// component; anything else (a separator, "." or "..", "latest", a
// leading dot) is refused before anything is written, so that no run
// lands outside the store or inside another run's folder.
func TestCreateRefusesNamesOutsideItsFolder(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"latest", "../esc", "a/b", ".", "..", ".hidden", "", "-x", "a\\b", "x\x1b[31m"} {
		t.Run(name, func(t *testing.T) {
			parent := t.TempDir()
			store := filepath.Join(parent, "store")
			_, err := Create(store, name, time.Now())
			require.ErrorIs(t, err, ErrBadName)
			assert.Contains(t, err.Error(), fmt.Sprintf("%q", name))
			entries, err := os.ReadDir(parent)
			require.NoError(t, err)
			assert.Empty(t, entries, "nothing may be written for a refused name")
		})
	}
}

// TestConcurrentCreatesShareAStore: runs that start at once in one store
// each get their own directory, and latest ends up a valid link to one of
// them, with no temporary link left behind.
func TestConcurrentCreatesShareAStore(t *testing.T) {
	t.Parallel()
	store := t.TempDir()
	at := time.Date(2026, 12, 3, 15, 4, 5, 0, time.UTC) // all in the same millisecond
	const runs = 50
	dirs := make([]string, runs)
	errs := make([]error, runs)
	var wg sync.WaitGroup
	for i := range runs {
		wg.Go(func() { dirs[i], errs[i] = Create(store, "shared", at) })
	}
	wg.Wait()
	seen := map[string]bool{}
	for i := range runs {
		require.NoError(t, errs[i], "run %d", i)
		assert.False(t, seen[dirs[i]], "two runs got %s", dirs[i])
		seen[dirs[i]] = true
	}
	latest, err := os.Readlink(filepath.Join(store, Latest))
	require.NoError(t, err)
	assert.True(t, seen[filepath.Join(store, latest)], "latest points at %s, not a run of this store", latest)
	entries, err := os.ReadDir(store)
	require.NoError(t, err)
	for _, e := range entries {
		assert.Contains(t, []string{"shared", Latest}, e.Name(), "left behind")
	}
}
