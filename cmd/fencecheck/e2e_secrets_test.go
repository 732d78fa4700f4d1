package main

import (
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
)

// credentials are what a guard in front of the reference receiver
// requires; a zero field is not required.
type credentials struct {
	user, password string // Basic authentication
	token          string // the query parameter token
	header, value  string // one more header
}

// guard forwards to the receiver at base only the requests that carry
// want, strips the token parameter, and counts what it let through and
// what it refused; a refusal answers 401 and echoes what the request
// carried, as a careless receiver might.
type guard struct {
	passed, refused atomic.Int64
}

func (g *guard) handler(t *testing.T, base string, want credentials) http.Handler {
	u, err := url.Parse(base)
	require.NoError(t, err)
	next := httputil.NewSingleHostReverseProxy(u)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pw, _ := r.BasicAuth()
		ok := user == want.user && pw == want.password && r.URL.Query().Get("token") == want.token &&
			(want.header == "" || r.Header.Get(want.header) == want.value)
		if !ok {
			g.refused.Add(1)
			http.Error(w, "unauthorized: "+r.URL.String()+" "+r.Header.Get("Authorization")+" "+r.Header.Get(want.header), http.StatusUnauthorized)
			return
		}
		g.passed.Add(1)
		q := r.URL.Query()
		q.Del("token")
		r.URL.RawQuery = q.Encode()
		r.Header.Del("Authorization")
		next.ServeHTTP(w, r)
	})
}

// TestSecretsAreNeverWritten plants distinct secrets in the target URL's
// user information and query, in --header values and in a
// --basic-auth-file, runs run, verify and check against a receiver that
// requires them, and greps every file and folder name of the run store
// and every output for them: none may appear. With credentials the guard
// refuses, the receiver's echo of them in its 401s must not appear either.
func TestSecretsAreNeverWritten(t *testing.T) {
	t.Parallel()
	receiver := startReceiver(t)
	authFile := filepath.Join(schema.TempDir(t), "auth")
	require.NoError(t, os.WriteFile(authFile, []byte("bob:B4sicF1le-pw\n"), 0o600))
	cases := []struct {
		name    string
		require credentials
		target  func(host string) string
		flags   []string
		secrets []string
		masked  bool // the reproduce line leaves a secret out
		refused bool // the guard refuses what is sent
	}{
		{
			name:    "userinfo, query token, API key header",
			require: credentials{user: "alice", password: "Sekr11t-userinfo", token: "T0ken-query", header: "X-Api-Key", value: "K3y-header"},
			target:  func(host string) string { return "http://alice:Sekr11t-userinfo@" + host + "/?token=T0ken-query" },
			flags:   []string{"--header", "X-Api-Key: K3y-header"},
			secrets: []string{"Sekr11t-userinfo", "T0ken-query", "K3y-header", basic("alice:Sekr11t-userinfo")},
			masked:  true,
		},
		{
			name:    "basic-auth file",
			require: credentials{user: "bob", password: "B4sicF1le-pw"},
			target:  func(host string) string { return "http://" + host },
			flags:   []string{"--basic-auth-file", authFile},
			secrets: []string{"B4sicF1le-pw", basic("bob:B4sicF1le-pw")},
		},
		{
			name:    "bearer token header",
			require: credentials{header: "Authorization", value: "Bearer B3arer-header"},
			target:  func(host string) string { return "http://" + host },
			flags:   []string{"--header", "Authorization: Bearer B3arer-header"},
			secrets: []string{"B3arer-header"},
			masked:  true,
		},
		{
			name:    "refused, and echoed by the receiver",
			require: credentials{user: "alice", password: "other", token: "other"},
			target:  func(host string) string { return "http://alice:Ech0ed-userinfo@" + host + "/?token=Ech0ed-query" },
			flags:   []string{"--header", "Authorization-Extra: Ech0ed-header"},
			secrets: []string{"Ech0ed-userinfo", "Ech0ed-query", "Ech0ed-header", basic("alice:Ech0ed-userinfo")},
			masked:  true,
			refused: true,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var g guard
			srv := httptest.NewServer(g.handler(t, receiver, tc.require))
			t.Cleanup(srv.Close)
			target := tc.target(strings.TrimPrefix(srv.URL, "http://"))
			dir := schema.TempDir(t)
			run := fencecheck(t, dir, append([]string{"run", "--target", target, "--ops", "300", "--lease-ttl", "30ms", "--op-timeout", "2s",
				"--seed", "1", "--min-stale", "0", "--store", "s", "--nemesis", "pause,delay,hold"}, tc.flags...)...)
			verify := fencecheck(t, dir, append([]string{"verify", "--target", target, "--store", "s"}, tc.flags...)...)
			check := fencecheck(t, dir, "check", filepath.Join("s", "latest", "history.jsonl"))
			outputs := map[string]result{"run": run, "verify": verify, "check": check}
			if tc.refused {
				assert.Zero(t, g.passed.Load(), "the guard let a request through")
				assert.NotEqual(t, 0, run.code, run.stdout+run.stderr)
			} else {
				assert.Zero(t, g.refused.Load(), "the credentials were not sent on every request")
				assert.Positive(t, g.passed.Load())
				assert.Equal(t, 0, run.code, run.stdout+run.stderr)
				assert.Equal(t, 0, verify.code, verify.stdout+verify.stderr)
			}
			if tc.masked {
				if !tc.refused { // a refused run stops before its summary
					assert.Contains(t, run.stdout, redactedNote)
				}
				assert.Contains(t, verify.stdout, redactedNote)
			} else {
				assert.NotContains(t, run.stdout+verify.stdout, redactedNote, "nothing was left out")
			}
			for name, r := range outputs {
				for _, s := range tc.secrets {
					assert.NotContains(t, r.stdout, s, "%s stdout", name)
					assert.NotContains(t, r.stderr, s, "%s stderr", name)
				}
			}
			files := 0
			require.NoError(t, filepath.Walk(filepath.Join(dir, "s"), func(path string, info os.FileInfo, err error) error {
				if err != nil {
					return err
				}
				var content []byte
				if info.Mode().IsRegular() {
					files++
					if content, err = os.ReadFile(path); err != nil {
						return err
					}
				}
				for _, s := range tc.secrets {
					assert.NotContains(t, path, s, "a name in the store")
					assert.NotContains(t, string(content), s, "in %s", path)
				}
				return nil
			}))
			assert.GreaterOrEqual(t, files, 4, "the store holds the run's and verify's files")
		})
	}
}

// basic is the credentials of an Authorization: Basic header.
func basic(userPassword string) string {
	return base64.StdEncoding.EncodeToString([]byte(userPassword))
}

// redactedNote is what a reproduce line with a secret left out says.
const redactedNote = "# xxxxx marks a secret left out"

// assertNowhereInStore checks that secret is in no file and no name of
// the run store at root.
func assertNowhereInStore(t *testing.T, root, secret string) {
	t.Helper()
	require.NoError(t, filepath.Walk(root, func(path string, info os.FileInfo, err error) error {
		require.NoError(t, err)
		assert.NotContains(t, path, secret)
		if info.Mode().IsRegular() {
			b, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.NotContains(t, string(b), secret, path)
		}
		return nil
	}))
}
