package main

import (
	"bufio"
	"encoding/xml"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
)

// junitDoc is the part of a JUnit file the tests look at.
type junitDoc struct {
	Tests    int `xml:"tests,attr"`
	Failures int `xml:"failures,attr"`
	Errors   int `xml:"errors,attr"`
	Suites   []struct {
		Cases []struct {
			Name    string `xml:"name,attr"`
			Failure *struct {
				Message string `xml:"message,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			Error *struct {
				Message string `xml:"message,attr"`
			} `xml:"error"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func readJUnit(t *testing.T, path string) junitDoc {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var doc junitDoc
	require.NoError(t, xml.Unmarshal(data, &doc))
	return doc
}

func TestRunWritesReportsAndGates(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name               string
		args               []string
		code               int
		tests, fails, errs int
		minimal            bool
	}{
		// 4 resources, the evidence gate and the coverage gate, which
		// pause and delay ask for by default.
		{"a violation: one failing case per violated resource", []string{"--target", "memory://unfenced", "--seed", "3"}, 1, 6, 4, 0, true},
		{"held, with the exclusive and coverage gates", []string{"--target", "memory://fenced", "--seed", "8", "--min-stale", "1", "--require", "exclusive"}, 1, 7, 1, 0, false},
		{"the coverage gate not met is an error case", []string{"--target", "memory://fenced", "--seed", "7", "--nemesis", "none", "--min-stale", "1"}, 2, 6, 0, 1, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := schema.TempDir(t)
			r := fencecheck(t, dir, append([]string{"run", "--store", "s", "--junit", "report.xml"}, tc.args...)...)
			require.Equal(t, tc.code, r.code, r.stdout+r.stderr)
			doc := readJUnit(t, filepath.Join(dir, "report.xml"))
			assert.Equal(t, tc.tests, doc.Tests)
			assert.Equal(t, tc.fails, doc.Failures)
			assert.Equal(t, tc.errs, doc.Errors)
			run := filepath.Join(dir, "s", "latest")
			for _, f := range []string{"report.html", "timeline.html"} {
				assert.FileExists(t, filepath.Join(run, f))
			}
			assert.Contains(t, r.stdout, "report      s/")
			summary, err := os.ReadFile(filepath.Join(run, "summary.txt"))
			require.NoError(t, err)
			if !tc.minimal {
				assert.NoFileExists(t, filepath.Join(run, "minimal.html"))
				return
			}
			assert.FileExists(t, filepath.Join(run, "minimal.html"))
			for _, out := range []string{r.stdout, string(summary)} {
				assert.Contains(t, out, "minimal counterexample: 2 of ")
			}
			failure := doc.Suites[0].Cases[0].Failure
			require.NotNil(t, failure)
			assert.Contains(t, failure.Text, "what the resource should have done")
			again := fencecheck(t, dir, "check", "s/latest/minimal.jsonl")
			assert.Equal(t, 1, again.code, "the minimal history is still a violation:\n%s", again.stdout)
		})
	}
}

func TestCheckWritesReportsAndGates(t *testing.T) {
	t.Parallel()
	dir := schema.TempDir(t)
	require.Equal(t, 0, fencecheck(t, dir, "replay").code)
	r := fencecheck(t, dir, "check", "replay-out/unfenced.jsonl", "--report", "rep", "--junit", "j.xml")
	require.Equal(t, 1, r.code, r.stderr)
	assert.Contains(t, r.stdout, "minimal counterexample: 2 of 4 operations on report (1-minimal")
	assert.Contains(t, r.stdout, "report         rep/report.html")
	for _, f := range []string{"report.html", "timeline.html", "minimal.html", "minimal.jsonl"} {
		assert.FileExists(t, filepath.Join(dir, "rep", f))
	}
	doc := readJUnit(t, filepath.Join(dir, "j.xml"))
	assert.Equal(t, 1, doc.Failures)
	assert.Contains(t, doc.Suites[0].Cases[0].Failure.Message, "stale write accepted")

	held := fencecheck(t, dir, "check", "replay-out/fenced.jsonl", "--junit", "ok.xml", "--json")
	require.Equal(t, 0, held.code)
	assert.NotContains(t, held.stdout, `"minimal"`)
	assert.Zero(t, readJUnit(t, filepath.Join(dir, "ok.xml")).Failures)
}

// TestServe starts fencecheck serve on a free loopback port and reads the
// runs table and a report from it.
func TestServe(t *testing.T) {
	t.Parallel()
	dir := schema.TempDir(t)
	require.Equal(t, 1, fencecheck(t, dir, "run", "--target", "memory://unfenced", "--seed", "3", "--store", "s").code)
	base := startServe(t, dir, "s")
	body := httpGet(t, base+"/")
	assert.Contains(t, body, "memory://unfenced")
	assert.Contains(t, body, `class="pill violated"`)
	assert.Contains(t, httpGet(t, base+"/latest/"), "Minimal counterexample")

	bad := fencecheck(t, dir, "serve", "--store", "missing")
	assert.Equal(t, 3, bad.code)
	assert.Contains(t, bad.stderr, "--store")
}

// startServe runs fencecheck serve on port 0, with more flags if given,
// and returns its base URL.
func startServe(t *testing.T, dir, store string, args ...string) string {
	t.Helper()
	cmd := exec.Command(fencecheckBinary, append([]string{"serve", "--store", store, "--listen", "127.0.0.1:0"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err)
	m := regexp.MustCompile(`http://[0-9.:]+`).FindString(line)
	require.NotEmpty(t, m, line)
	return m
}

func httpGet(t *testing.T, url string) string {
	t.Helper()
	c := &http.Client{Timeout: 30 * time.Second}
	resp, err := c.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, url)
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return strings.TrimSpace(string(b))
}
