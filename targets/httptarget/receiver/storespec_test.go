package receiver

import (
	"context"
	"database/sql"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSQLitePathIsTakenLiterally: the file created is exactly the one the
// path names, whatever it holds ('?' ended the name before, and the
// pragmas after it were lost: sqlite:/x/we?ird.db opened /x/we, not in WAL
// mode), and a reopened store finds what was written.
func TestSQLitePathIsTakenLiterally(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"plain.db", "we?ird.db", "a#b.db", "with space.db", "per%20cent.db", "all ?#%&=;.db", ":memory:", "ünï.db"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir() // not validated: a SQLite store, not a history
			path := filepath.Join(dir, name)
			for _, spec := range []string{"sqlite:" + path, "sqlite://" + path} {
				s, err := ParseStore(spec)
				require.NoError(t, err, spec)
				_, _, err = s.CompareAndPut(context.Background(), "r", Cell{"v", 7}, Greater)
				require.NoError(t, err)
				var mode string
				require.NoError(t, s.(*SQLite).db.QueryRow("PRAGMA journal_mode").Scan(&mode))
				assert.Equal(t, "wal", mode)
				entries, err := os.ReadDir(dir)
				require.NoError(t, err)
				for _, e := range entries {
					assert.Contains(t, []string{name, name + "-wal", name + "-shm"}, e.Name(), "a file the path does not name")
				}
				require.NoError(t, s.Close())
				assert.FileExists(t, path)
			}
			s, err := OpenSQLite(path)
			require.NoError(t, err)
			defer s.Close()
			c, found, err := s.Get(context.Background(), "r")
			require.NoError(t, err)
			assert.True(t, found)
			assert.Equal(t, Cell{"v", 7}, c)
		})
	}
}

// TestSQLiteRefusesPragmasThatDidNotApply: SQLite answers WAL on an
// in-memory or an immutable database without an error and stays in
// another journal mode; the store refuses to open rather than promise a
// durability it lacks (it opened before). A read-only file fails its
// first connection.
func TestSQLiteRefusesPragmasThatDidNotApply(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "delete-mode.db") // not validated: a SQLite store, not a history
	db, err := sql.Open("sqlite", path)
	require.NoError(t, err)
	_, err = db.Exec(`CREATE TABLE resources (resource TEXT PRIMARY KEY, token TEXT NOT NULL, value BLOB NOT NULL)`)
	require.NoError(t, err)
	require.NoError(t, db.Close())
	u := "file://" + (&url.URL{Path: path}).EscapedPath()
	cases := map[string]string{
		"sqlite:file::memory:":           `PRAGMA journal_mode is "memory" after setting it to WAL: SQLite did not apply it`,
		"sqlite:" + u + "?immutable=1":   `PRAGMA journal_mode is "delete" after setting it to WAL: SQLite did not apply it`,
		"sqlite:" + u + "?mode=ro":       "attempt to write a readonly database",
		"sqlite:" + u + "?mode=ro&vfs=x": "no such vfs",
	}
	for spec, want := range cases {
		t.Run(spec, func(t *testing.T) {
			t.Parallel()
			s, err := ParseStore(spec)
			if err == nil {
				s.Close()
			}
			require.ErrorContains(t, err, want)
			assert.ErrorContains(t, err, "open sqlite store "+spec)
		})
	}
}

func TestSQLiteURIWithParametersOfItsOwn(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "a b.db") // not validated: a SQLite store, not a history
	s, err := ParseStore("sqlite:file://" + (&url.URL{Path: path}).EscapedPath() + "?cache=private&mode=rwc")
	require.NoError(t, err)
	require.NoError(t, s.Close())
	assert.FileExists(t, path)
}

// TestCheckPragmas covers what no real SQLite file does here: a
// synchronous level other than FULL, and a failed read.
func TestCheckPragmas(t *testing.T) {
	t.Parallel()
	answers := func(over map[string]string, fail string) func(string) (string, error) {
		return func(p string) (string, error) {
			if p == fail {
				return "", errors.New("disk I/O error")
			}
			if v, ok := over[p]; ok {
				return v, nil
			}
			return map[string]string{"busy_timeout": "5000", "journal_mode": "wal", "synchronous": "2"}[p], nil
		}
	}
	cases := []struct {
		name string
		read func(string) (string, error)
		err  string
	}{
		{"all applied", answers(nil, ""), ""},
		{"synchronous NORMAL", answers(map[string]string{"synchronous": "1"}, ""), `PRAGMA synchronous is "1" after setting it to FULL`},
		{"no busy timeout", answers(map[string]string{"busy_timeout": "0"}, ""), `PRAGMA busy_timeout is "0" after setting it to 5000`},
		{"journal_mode delete", answers(map[string]string{"journal_mode": "delete"}, ""), "cannot be in WAL mode"},
		{"a failed read", answers(nil, "synchronous"), "read back PRAGMA synchronous: disk I/O error"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			err := checkPragmas(c.read)
			if c.err == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, c.err)
		})
	}
}

func TestStoreDSN(t *testing.T) {
	t.Parallel()
	const pragmas = "_pragma=busy_timeout%285000%29&_pragma=journal_mode%28WAL%29&_pragma=synchronous%28FULL%29"
	cases := []struct {
		spec, dsn, err string
	}{
		{"sqlite:/x/we?ird.db", "file:///x/we%3Fird.db?" + pragmas, ""},
		{"sqlite:///x/a b#c%d.db", "file:///x/a%20b%23c%25d.db?" + pragmas, ""},
		{"sqlite:rel/x.db", "file:./rel/x.db?" + pragmas, ""},
		{"sqlite::memory:", "file:./%3Amemory%3A?" + pragmas, ""},
		{"sqlite:./file:x.db", "file:././file%3Ax.db?" + pragmas, ""},
		{"sqlite:file:/x/y.db", "file:/x/y.db?" + pragmas, ""},
		{"sqlite:file:///x/y.db?mode=rwc", "file:///x/y.db?mode=rwc&" + pragmas, ""},
		{"sqlite:", "", "sqlite: names no path"},
		{"sqlite://", "", "sqlite: names no path"},
		{"sqlite:a\x00b", "", "NUL byte"},
		{"postgres://x", "", "want memory, sqlite:PATH or sqlite:file:URI"},
		{"sqlite:file:x.db?_pragma=journal_mode(DELETE)", "", "the URI sets journal_mode, which the store sets itself"},
		{"sqlite:file:x.db?_pragma=%20Synchronous%3DOFF", "", "the URI sets synchronous"},
		{"sqlite:file:x.db?_sync=0", "", "the URI sets synchronous"},
		{"sqlite:file:x.db?_timeout=1", "", "the URI sets busy_timeout"},
		{"sqlite:file:x.db?a=%zz", "", "the URI's query"},
		{"sqlite:file:x.db#frag", "", "fragment"},
	}
	for _, c := range cases {
		t.Run(c.spec, func(t *testing.T) {
			t.Parallel()
			dsn, memory, err := storeDSN(c.spec)
			assert.False(t, memory)
			if c.err != "" {
				require.ErrorContains(t, err, c.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.dsn, dsn)
		})
	}
	for _, spec := range []string{"", "memory"} {
		_, memory, err := storeDSN(spec)
		require.NoError(t, err)
		assert.True(t, memory, spec)
	}
}

// FuzzStoreDSN: a plain path's DSN names exactly that path (SQLite
// decodes it back to the same bytes) and ends in the store's pragmas,
// with no other '?' or '#' that could cut the name short or lose them.
func FuzzStoreDSN(f *testing.F) {
	for _, s := range []string{"sqlite:/x/we?ird.db", "sqlite://rel", "sqlite::memory:", "sqlite:file:x.db?mode=ro", "sqlite:%41", "memory", "sqlite:a b#c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		dsn, memory, err := storeDSN(spec)
		if err != nil || memory {
			return
		}
		require.True(t, strings.HasSuffix(dsn, pragmaParams()), dsn)
		rest := strings.TrimPrefix(spec, "sqlite:")
		if strings.HasPrefix(rest, "file:") {
			require.True(t, strings.HasPrefix(dsn, rest), dsn)
			return
		}
		path := strings.TrimPrefix(rest, "//")
		name, query, ok := strings.Cut(dsn, "?")
		require.True(t, ok)
		require.Equal(t, pragmaParams(), query, "one '?' only")
		require.NotContains(t, dsn, "#")
		if strings.HasPrefix(path, "/") {
			name = strings.TrimPrefix(name, "file://")
		} else {
			name = strings.TrimPrefix(name, "file:./")
		}
		decoded, err := url.PathUnescape(name)
		require.NoError(t, err)
		require.Equal(t, path, decoded)
	})
}
