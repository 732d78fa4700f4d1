package main

import (
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
)

// getAs sends GET url with the given Host header and returns the status
// and the body.
func getAs(t *testing.T, rawURL, host string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, rawURL, nil)
	require.NoError(t, err)
	req.Host = host
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

// hostCases are the Host checks serve and receiver share: the flags
// given and, per Host, whether it is answered.
var hostCases = []struct {
	name    string
	flags   []string
	host    string
	answers bool
}{
	{"another site", nil, "evil.example", false},
	{"another site on the port", nil, "evil.example:{port}", false},
	{"127.0.0.1", nil, "127.0.0.1:{port}", true},
	{"localhost", nil, "localhost:{port}", true},
	{"[::1]", nil, "[::1]:{port}", true},
	{"--host adds one", []string{"--host", "box.lan"}, "box.lan:{port}", true},
	{"--host adds only that one", []string{"--host", "box.lan"}, "evil.example", false},
	{"--allow-remote answers every host", []string{"--allow-remote"}, "evil.example", true},
}

// TestServeAnswersOnlyAllowedHosts: serve refuses a request for a host
// that is not loopback (it answered any before, so a web page could read
// the store by DNS rebinding), and says which flag answers it.
func TestServeAnswersOnlyAllowedHosts(t *testing.T) {
	t.Parallel()
	dir := schema.TempDir(t)
	require.NoError(t, os.Mkdir(filepath.Join(dir, "s"), 0o755))
	for _, c := range hostCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			base := startServe(t, dir, "s", c.flags...)
			code, body := getAs(t, base+"/", hostOf(t, base, c.host))
			if c.answers {
				assert.Equal(t, http.StatusOK, code, body)
				return
			}
			assert.Equal(t, http.StatusMisdirectedRequest, code, body)
			assert.Contains(t, body, `host "`+hostOf(t, base, c.host)+`"`)
			assert.Contains(t, body, "restart with --host evil.example (or --allow-remote")
		})
	}
	bad := fencecheck(t, dir, "serve", "--store", "s", "--host", "box.lan:80")
	assert.Equal(t, 3, bad.code)
	assert.Contains(t, bad.stderr, `--host: host "box.lan:80": names a port`)
}

// TestReceiverAnswersOnlyAllowedHosts: the same for the reference
// receiver, which a web page could otherwise write to.
func TestReceiverAnswersOnlyAllowedHosts(t *testing.T) {
	t.Parallel()
	for _, c := range hostCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			base := startReceiver(t, c.flags...)
			code, body := getAs(t, base+"/resources/r1", hostOf(t, base, c.host))
			if c.answers {
				assert.Equal(t, http.StatusNotFound, code, "a resource never written: %s", body)
				return
			}
			assert.Equal(t, http.StatusMisdirectedRequest, code, body)
			assert.Contains(t, body, "restart with --host evil.example (or --allow-remote")
		})
	}
	bad := fencecheck(t, schema.TempDir(t), "receiver", "--listen", "127.0.0.1:0", "--host", "a b")
	assert.Equal(t, 3, bad.code)
	assert.Contains(t, bad.stderr, `--host: host "a b": "a b" is not a host name`)
}

// TestRunThroughTheProxyByName: the fault proxy forwards the target URL's
// host, so a run against http://localhost:PORT is answered by a receiver
// on 127.0.0.1, proxy faults and all: writes are accepted (a refused one
// never is).
func TestRunThroughTheProxyByName(t *testing.T) {
	t.Parallel()
	base := startReceiver(t)
	byName := hostOf(t, base, "localhost:{port}")
	r := fencecheck(t, schema.TempDir(t), "run", "--target", "http://"+byName, "--ops", "200", "--op-timeout", "2s", "--seed", "1",
		"--store", "s", "--nemesis", "hold,drop-response,latency", "--min-stale", "0")
	assert.Equal(t, 0, r.code, r.stdout+r.stderr)
	m := regexp.MustCompile(`writes \((\d+) accepted, \d+ rejected, \d+ unknown, 0 failed\)`).FindStringSubmatch(r.stdout)
	require.NotNil(t, m, r.stdout)
	assert.NotEqual(t, "0", m[1], "no write accepted: %s", r.stdout)
	assert.NotContains(t, r.stdout+r.stderr, "status 421", "the proxy forwarded a Host the receiver refused")
}

// hostOf puts base's port into host's {port}.
func hostOf(t *testing.T, base, host string) string {
	t.Helper()
	u, err := url.Parse(base)
	require.NoError(t, err)
	return strings.ReplaceAll(host, "{port}", u.Port())
}
