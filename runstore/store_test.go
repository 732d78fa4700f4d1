package runstore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
)

func TestCreateAndList(t *testing.T) {
	t.Parallel()
	store := schema.TempDir(t)
	at := time.Date(2026, 12, 3, 15, 4, 5, 6e6, time.UTC)
	first, err := Create(store, "memory-fenced", at)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(store, "memory-fenced", "20261203T150405.006Z"), first)
	second, err := Create(store, "memory-fenced", at) // the same millisecond
	require.NoError(t, err)
	assert.Equal(t, first+"-1", second, "quick successive runs do not collide")
	_, err = os.Lstat(filepath.Join(store, Latest))
	assert.ErrorIs(t, err, os.ErrNotExist, "a run is not latest before it has a result")
	writeResult(t, second)
	require.NoError(t, Publish(store, second))
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
			parent := schema.TempDir(t)
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

// stubResult is the smallest result.json of the current format: a
// battery with no scenarios. What is in it is no business of the store,
// but it is a valid one (docs/schema).
const stubResult = `{"format":2,"target":"memory://fenced","max_token":0,"require_exclusive":false,"passed":true,"dir":"","scenarios":[]}`

// stubHistory is a history that recorded nothing: its header.
const stubHistory = `{"index":0,"time":0,"actor":"harness","f":"header","format":1}` + "\n"

// writeResult writes a result.json into the run directory dir.
func writeResult(t *testing.T, dir string) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(dir, Result), []byte(stubResult), 0o644))
}

// TestConcurrentRunsShareAStore: runs that start at once in one store
// each get their own directory; while some publish their result and
// others fail before recording anything (removing their directory and,
// when empty, the name folder the others are creating theirs in), latest
// ends up a valid link to a run with a result, with no temporary link
// left behind.
func TestConcurrentRunsShareAStore(t *testing.T) {
	t.Parallel()
	store := schema.TempDir(t)
	at := time.Date(2026, 12, 3, 15, 4, 5, 0, time.UTC) // all in the same millisecond
	const runs = 50
	dirs := make([]string, runs)
	errs := make([]error, runs)
	var wg sync.WaitGroup
	for i := range runs {
		wg.Go(func() {
			dirs[i], errs[i] = Create(store, "shared", at)
			if errs[i] != nil {
				return
			}
			if i%2 == 1 { // a run that could not start
				if err := Fail(store, dirs[i], errUnreachable); err != errUnreachable {
					errs[i] = fmt.Errorf("fail: %w", err)
				}
				return
			}
			writeResult(t, dirs[i])
			errs[i] = Publish(store, dirs[i])
		})
	}
	wg.Wait()
	published := map[string]bool{}
	for i := range runs {
		require.NoError(t, errs[i], "run %d", i)
		if i%2 == 0 {
			assert.False(t, published[dirs[i]], "two runs got %s", dirs[i])
			published[dirs[i]] = true
			assert.FileExists(t, filepath.Join(dirs[i], Result))
		}
	}
	for i := 1; i < runs; i += 2 {
		if !published[dirs[i]] { // a later run may reuse a removed name
			assert.NoDirExists(t, dirs[i], "a run that could not start leaves no directory")
		}
	}
	latest, err := os.Readlink(filepath.Join(store, Latest))
	require.NoError(t, err)
	assert.True(t, published[filepath.Join(store, latest)], "latest points at %s, not a published run of this store", latest)
	entries, err := os.ReadDir(store)
	require.NoError(t, err)
	for _, e := range entries {
		assert.Contains(t, []string{"shared", Latest}, e.Name(), "left behind")
	}
	stamps, err := os.ReadDir(filepath.Join(store, "shared"))
	require.NoError(t, err)
	assert.Len(t, stamps, runs/2, "only the published runs' directories stay")
}

var errUnreachable = errors.New("set up target http://127.0.0.1:1: connection refused")

// TestPublishNeedsAResult: only a run directory of the store with a
// regular result.json becomes latest; anything else is refused and
// leaves latest where it was.
func TestPublishNeedsAResult(t *testing.T) {
	t.Parallel()
	store := schema.TempDir(t)
	done, err := Create(store, "done", time.Now())
	require.NoError(t, err)
	writeResult(t, done)
	require.NoError(t, Publish(store, done))
	cases := []struct {
		name string
		dir  func(t *testing.T) string
		want error
	}{
		{"no result.json (still running, or killed)", func(t *testing.T) string {
			dir, err := Create(store, "running", time.Now())
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(dir, History), []byte(stubHistory), 0o644))
			return dir
		}, ErrNoResult},
		{"result.json is a directory", func(t *testing.T) string {
			dir, err := Create(store, "odd", time.Now())
			require.NoError(t, err)
			require.NoError(t, os.Mkdir(filepath.Join(dir, Result), 0o755))
			return dir
		}, ErrNoResult},
		{"result.json is a link", func(t *testing.T) string {
			dir, err := Create(store, "linked", time.Now())
			require.NoError(t, err)
			require.NoError(t, os.Symlink(filepath.Join(done, Result), filepath.Join(dir, Result)))
			return dir
		}, ErrNoResult},
		{"not a run directory of the store", func(t *testing.T) string {
			dir := schema.TempDir(t)
			writeResult(t, dir)
			return dir
		}, nil},
		{"the store itself", func(*testing.T) string { writeResult(t, store); return store }, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := tc.dir(t)
			err := Publish(store, dir)
			require.Error(t, err)
			if tc.want != nil {
				assert.ErrorIs(t, err, tc.want)
			}
			latest, err := filepath.EvalSymlinks(filepath.Join(store, Latest))
			require.NoError(t, err)
			want, err := filepath.EvalSymlinks(done)
			require.NoError(t, err)
			assert.Equal(t, want, latest, "latest stays at the run with a result")
		})
	}
}

// TestFail: a run that ends without a result leaves nothing when it wrote
// nothing, and otherwise keeps what it wrote with error.txt saying why;
// latest is never touched, and the caller's error comes back.
func TestFail(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		files []string // what the run wrote before it failed
		other bool     // another run of the same name is in the store
	}{
		{"nothing written", nil, false},
		{"nothing written, beside another run", nil, true},
		{"a history", []string{History}, false},
		{"a receiver's log", []string{"receiver.log"}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			store := schema.TempDir(t)
			if tc.other {
				other, err := Create(store, "r", time.Now())
				require.NoError(t, err)
				writeResult(t, other)
				require.NoError(t, Publish(store, other))
			}
			before, _ := os.Readlink(filepath.Join(store, Latest))
			dir, err := Create(store, "r", time.Now())
			require.NoError(t, err)
			for _, f := range tc.files {
				content := "x\n"
				if f == History {
					content = stubHistory
				}
				require.NoError(t, os.WriteFile(filepath.Join(dir, f), []byte(content), 0o644))
			}
			err = Fail(store, dir, errUnreachable)
			assert.Equal(t, errUnreachable, err, "the caller's error comes back as it was")
			after, _ := os.Readlink(filepath.Join(store, Latest))
			assert.Equal(t, before, after, "latest is not touched")
			if tc.files == nil {
				assert.NoDirExists(t, dir)
				if tc.other {
					assert.DirExists(t, filepath.Dir(dir), "the other run's name folder stays")
				} else {
					assert.NoDirExists(t, filepath.Dir(dir), "an empty name folder goes too")
					assert.DirExists(t, store, "the store stays")
				}
				return
			}
			why, err := os.ReadFile(filepath.Join(dir, Error))
			require.NoError(t, err)
			assert.Equal(t, errUnreachable.Error()+"\n", string(why))
			for _, f := range tc.files {
				assert.FileExists(t, filepath.Join(dir, f))
			}
		})
	}
	t.Run("not a run directory", func(t *testing.T) {
		t.Parallel()
		store, outside := schema.TempDir(t), schema.TempDir(t)
		err := Fail(store, outside, errUnreachable)
		assert.ErrorIs(t, err, errUnreachable)
		assert.Contains(t, err.Error(), "not a run directory")
		assert.DirExists(t, outside, "nothing outside the store is removed")
	})
}

// TestDiscard: a run its caller does not keep goes with everything in it,
// and its name folder with it unless another run is there; latest is not
// touched, and nothing outside the store is removed.
func TestDiscard(t *testing.T) {
	t.Parallel()
	for _, other := range []bool{false, true} {
		t.Run(fmt.Sprintf("another run beside it %v", other), func(t *testing.T) {
			t.Parallel()
			store := schema.TempDir(t)
			if other {
				o, err := Create(store, "r", time.Now())
				require.NoError(t, err)
				writeResult(t, o)
				require.NoError(t, Publish(store, o))
			}
			before, _ := os.Readlink(filepath.Join(store, Latest))
			dir, err := Create(store, "r", time.Now())
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(dir, "receiver.log"), []byte("x\n"), 0o644))
			require.NoError(t, Discard(store, dir))
			assert.NoDirExists(t, dir)
			after, _ := os.Readlink(filepath.Join(store, Latest))
			assert.Equal(t, before, after, "latest is not touched")
			if other {
				assert.DirExists(t, filepath.Dir(dir), "the other run's name folder stays")
			} else {
				assert.NoDirExists(t, filepath.Dir(dir), "an empty name folder goes too")
			}
		})
	}
	t.Run("not a run directory", func(t *testing.T) {
		t.Parallel()
		store, outside := schema.TempDir(t), schema.TempDir(t)
		require.NoError(t, os.WriteFile(filepath.Join(outside, "f"), nil, 0o644))
		err := Discard(store, outside)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "not a run directory")
		assert.FileExists(t, filepath.Join(outside, "f"), "nothing outside the store is removed")
	})
}
