package browse

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
)

const secret = "TOP-SECRET-OUTSIDE-THE-STORE"

// store lays out a run store with two runs, an unfinished one, and traps:
// links that lead outside the store.
func store(t *testing.T) string {
	t.Helper()
	outside := schema.TempDir(t)
	require.NoError(t, os.WriteFile(filepath.Join(outside, "report.html"), []byte(secret), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(outside, "secret.txt"), []byte(secret), 0o644))
	// not validated: hand-made results that hold only what the table reads
	dir := t.TempDir()
	write := func(rel, content string) {
		p := filepath.Join(dir, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	write("memory-fenced/20260102T030405.000Z/result.json", `{"verdict":"held","reason":"fine","started":"2026-01-02T03:04:05Z","counts":{"operations":835},"coverage":{"stale_writes":11},"config":{"target":"memory://fenced"}}`)
	write("memory-fenced/20260102T030405.000Z/report.html", "<h1>the report</h1>")
	write("memory-fenced/20260102T030405.000Z/history.jsonl", `{"index":0}`+"\n")
	write("memory-unfenced/20260103T030405.000Z/result.json", `{"verdict":"violated","reason":"stale","started":"2026-01-03T03:04:05Z","counts":{"operations":900},"coverage":{"stale_writes":0},"config":{"target":"memory://unfenced"}}`)
	write("memory-unfenced/20260103T030405.000Z/report.html", "<h1>bad</h1>")
	write("killed/20260104T030405.000Z/history.jsonl", `{"index":0}`+"\n")
	require.NoError(t, os.Symlink("memory-unfenced/20260103T030405.000Z", filepath.Join(dir, "latest")))
	// Traps.
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "evil")))
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "memory-fenced", "20260101T000000.000Z")))
	require.NoError(t, os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(dir, "memory-unfenced", "20260103T030405.000Z", "summary.txt")))
	return dir
}

func server(t *testing.T) *httptest.Server {
	t.Helper()
	s, err := New(store(t))
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return ts
}

// get sends a raw request path, unnormalized, and follows no redirects.
func get(t *testing.T, ts *httptest.Server, method, rawPath string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(method, ts.URL, nil)
	require.NoError(t, err)
	req.URL.Opaque = rawPath // sent as is
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, resp.Header, string(body)
}

func TestRunsTable(t *testing.T) {
	t.Parallel()
	ts := server(t)
	code, h, body := get(t, ts, http.MethodGet, "/")
	require.Equal(t, http.StatusOK, code)
	assert.Equal(t, "text/html; charset=utf-8", h.Get("Content-Type"))
	assert.Contains(t, h.Get("Content-Security-Policy"), "default-src 'none'")
	for _, want := range []string{"memory-fenced", "memory://unfenced", `class="pill violated"`, `class="pill held"`, `class="pill incomplete"`, ">835<", ">900<", `class="latest"`} {
		assert.Contains(t, body, want)
	}
	assert.Less(t, strings.Index(body, "memory://unfenced"), strings.Index(body, "memory://fenced"), "newest first")
	assert.NotContains(t, body, "evil", "a link out of the store is not a run")
	assert.NotContains(t, body, "20260101T000000.000Z", "nor is a run directory that links outside")
}

func TestRunFiles(t *testing.T) {
	t.Parallel()
	ts := server(t)
	cases := []struct {
		name, path string
		code       int
		body       string
		header     string
	}{
		{"a report", "/runs/memory-fenced/20260102T030405.000Z/report.html", 200, "the report", ""},
		{"a history downloads", "/runs/memory-fenced/20260102T030405.000Z/history.jsonl", 200, `{"index":0}`, "attachment"},
		{"a run redirects to its report", "/runs/memory-fenced/20260102T030405.000Z/", 302, "", ""},
		{"the latest run", "/latest/", 302, "", ""},
		{"a file no run writes", "/runs/memory-fenced/20260102T030405.000Z/secret.txt", 404, "", ""},
		{"a missing file", "/runs/memory-fenced/20260102T030405.000Z/timeline.html", 404, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			code, h, body := get(t, ts, http.MethodGet, tc.path)
			assert.Equal(t, tc.code, code, body)
			assert.Contains(t, body, tc.body)
			assert.Contains(t, h.Get("Content-Disposition"), tc.header)
			if tc.path == "/latest/" {
				assert.Equal(t, "/runs/memory-unfenced/20260103T030405.000Z/report.html", h.Get("Location"))
			}
		})
	}
}

// TestPathTraversal: nothing outside the store is ever served, however the
// path is spelled.
func TestPathTraversal(t *testing.T) {
	t.Parallel()
	ts := server(t)
	paths := []string{
		"/runs/../../../../etc/passwd",
		"/runs/..%2f..%2f..%2fetc/passwd/report.html",
		"/runs/%2e%2e/%2e%2e/report.html",
		"/runs/memory-fenced/%2e%2e/report.html",
		"/runs/memory-fenced/20260102T030405.000Z/..%2f..%2fevil%2freport.html",
		"/runs/memory-fenced/20260102T030405.000Z/%2e%2e%2f%2e%2e%2fevil%2fsecret.txt",
		"/runs/evil/x/report.html",                                   // a store entry that links outside
		"/runs/evil/./report.html",                                   //
		"/runs/memory-fenced/20260101T000000.000Z/report.html",       // a run directory that links outside
		"/runs/memory-unfenced/20260103T030405.000Z/summary.txt",     // a file that links outside
		"/runs/%2Fetc/passwd/report.html",                            // an absolute path
		"/runs/memory-fenced/%2Ftmp/report.html",                     //
		"//etc/passwd",                                               //
		"/runs/latest/..%2F..%2Fevil/report.html",                    //
		"/runs/memory-fenced/20260102T030405.000Z/%2e%2e%5cevil.txt", // a backslash
		"/runs/.hidden/x/report.html",
	}
	for _, p := range paths {
		t.Run(p, func(t *testing.T) {
			t.Parallel()
			code, h, body := get(t, ts, http.MethodGet, p)
			assert.NotContains(t, body, secret)
			assert.NotEqual(t, http.StatusOK, code, body)
			if loc := h.Get("Location"); loc != "" {
				// A cleaned redirect must not lead out either.
				code, _, body := get(t, ts, http.MethodGet, loc)
				assert.NotContains(t, body, secret)
				assert.NotEqual(t, http.StatusOK, code)
			}
		})
	}
}

func TestReadOnly(t *testing.T) {
	t.Parallel()
	ts := server(t)
	for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch} {
		code, h, _ := get(t, ts, m, "/runs/memory-fenced/20260102T030405.000Z/report.html")
		assert.Equal(t, http.StatusMethodNotAllowed, code, m)
		assert.Equal(t, "GET, HEAD", h.Get("Allow"))
	}
	code, _, body := get(t, ts, http.MethodHead, "/")
	assert.Equal(t, http.StatusOK, code)
	assert.Empty(t, body)
}

func TestEmptyStore(t *testing.T) {
	t.Parallel()
	s, err := New(schema.TempDir(t))
	require.NoError(t, err)
	defer s.Close()
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	assert.Contains(t, rec.Body.String(), "No runs yet")
	rec = httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/latest/", nil))
	assert.Equal(t, http.StatusNotFound, rec.Code)
	_, err = New(filepath.Join(schema.TempDir(t), "missing"))
	assert.Error(t, err)
}
