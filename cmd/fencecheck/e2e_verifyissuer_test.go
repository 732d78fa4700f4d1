package main

import (
	"os"
	"path/filepath"
	"testing"

	"al.essio.dev/pkg/shellescape"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/internal/redact"
	"github.com/fencecheck/fencecheck/internal/testdb"
)

// TestVerifyIssuer: the issuer battery passes against the run's own
// lease service, the embedded etcd cluster and the machine's Redis and
// PostgreSQL (whose tokens stop
// at 2^63-1: the next grant is refused, not wrapped), writes its table,
// result.json and the grants' history to the store, and a bad flag is a
// usage error naming it.
func TestVerifyIssuer(t *testing.T) {
	t.Parallel()
	type tc struct {
		leases, ttl string
		want        []string
	}
	passed := "6 passed, 0 failed, 0 info, 0 skipped"
	cases := []tc{
		{"local", "100ms", []string{passed, "| token-boundaries |", "2^63-1: 9223372036854775806→9223372036854775807→9223372036854775808 | pass |"}},
		// etcd's keepalive renews the holder's lease; grant-after-ttl
		// stops it, as a paused holder's stops.
		{"etcd", "2s", []string{"5 passed, 0 failed, 0 info, 1 skipped", "after the lease ran out by its TTL | pass |",
			"skipped: the issuer cannot start tokens near 2^31"}},
	}
	for _, s := range []*testdb.Server{testdb.Redis, testdb.Postgres} {
		if dsn, skip := s.DSN(); skip == "" {
			cases = append(cases, tc{dsn, "100ms", []string{passed, "2^63-1: 9223372036854775807, then refused | pass |"}})
		} else {
			t.Log(skip)
		}
	}
	for _, c := range cases {
		t.Run(c.leases, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			r := fencecheck(t, dir, "verify-issuer", "--leases", c.leases, "--lease-ttl", c.ttl, "--store", "s", "--junit", "j.xml")
			require.Equal(t, 0, r.code, r.stdout+r.stderr)
			for _, w := range c.want {
				assert.Contains(t, r.stdout, w)
			}
			assert.Contains(t, r.stdout, "reproduce with: fencecheck verify-issuer --lease-ttl "+c.ttl+" --leases "+shellescape.Quote(redact.Spec(c.leases)))
			for _, f := range []string{"table.txt", "result.json", "history.jsonl"} {
				assert.FileExists(t, filepath.Join(dir, "s", "latest", f))
			}
			result, err := os.ReadFile(filepath.Join(dir, "s", "latest", "result.json"))
			require.NoError(t, err)
			assert.Contains(t, string(result), `"battery": "issuer"`)
			history, err := os.ReadFile(filepath.Join(dir, "s", "latest", "history.jsonl"))
			require.NoError(t, err)
			assert.Contains(t, string(history), `"actor":"lease","f":"acquire"`)
			junit := readJUnit(t, filepath.Join(dir, "j.xml"))
			assert.Equal(t, 6, junit.Tests)
		})
	}
	for _, bad := range []struct{ args []string }{
		{[]string{"verify-issuer"}},
		{[]string{"verify-issuer", "--leases", "bogus"}},
		{[]string{"verify-issuer", "--leases", "local", "--lease-ttl", "0s"}},
	} {
		r := fencecheck(t, t.TempDir(), bad.args...)
		assert.Equal(t, 3, r.code, r.stderr)
		assert.Regexp(t, `--(leases|lease-ttl)`, r.stderr)
	}
}
