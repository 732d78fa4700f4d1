package browse

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/runstore"
	"github.com/fencecheck/fencecheck/targets/memory"
)

// serveOrGiveUp serves one request in the background and returns its
// response, or fails the test if none comes within a bound far beyond
// what any request needs (a safety net, so that a handler stuck opening
// a FIFO fails the test instead of hanging it).
func serveOrGiveUp(t *testing.T, s *Server, path string) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	select {
	case <-done:
		return rec
	case <-ctx.Done():
		t.Fatalf("GET %s: no answer: the server is stuck", path)
		return nil
	}
}

// TestOnlyRegularFilesAreServed: a FIFO (or any file that is not a regular
// one) under a name a run writes is neither opened to fill the runs table
// nor served: opening a FIFO for reading waits for a writer, forever. The
// table still lists the other runs, and the FIFOs answer 404 at once.
func TestOnlyRegularFilesAreServed(t *testing.T) {
	t.Parallel()
	store := schema.TempDir(t)
	_, err := run(t, context.Background(), store, "good", memory.NewFenced(), nil)
	require.NoError(t, err)
	dir := filepath.Join(store, "fifo", "20260102T030405.000Z")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	names := []string{runstore.Result, runstore.Report, runstore.History, runstore.Error}
	for _, name := range names {
		p := filepath.Join(dir, name)
		require.NoError(t, syscall.Mkfifo(p, 0o644))
		// Should a request open it and wait, a writer lets it go at the
		// end, so that the failing test does not hang.
		t.Cleanup(func() {
			if f, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				f.Close()
			}
		})
	}
	require.NoError(t, os.Symlink("/dev/zero", filepath.Join(dir, runstore.Summary)))
	s, err := New(store)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })

	t.Run("the table", func(t *testing.T) {
		rec := serveOrGiveUp(t, s, "/")
		require.Equal(t, http.StatusOK, rec.Code)
		page := rec.Body.String()
		assert.Contains(t, rowOf(page, "good"), `class="pill held"`, "the other runs are listed")
		row := rowOf(page, "fifo")
		require.NotEmpty(t, row, "the directory is listed")
		assert.NotContains(t, row, "/runs/fifo/", "but links to none of its files")
	})
	for _, name := range append(names, runstore.Summary) {
		t.Run(name, func(t *testing.T) {
			rec := serveOrGiveUp(t, s, "/runs/fifo/20260102T030405.000Z/"+name)
			assert.Equal(t, http.StatusNotFound, rec.Code)
		})
	}
	t.Run("its page", func(t *testing.T) {
		assert.Equal(t, http.StatusNotFound, serveOrGiveUp(t, s, "/runs/fifo/20260102T030405.000Z/").Code)
	})
}
