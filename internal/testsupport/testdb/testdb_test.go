package testdb

import (
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLookup: the variable overrides the default; a server that answers
// yields its DSN and no reason; one that does not yields a reason naming
// the server, the address tried and the variable to set.
func TestLookup(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	up := ln.Addr().String()
	// A port that was free a moment ago refuses the connection.
	gone, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	down := gone.Addr().String()
	require.NoError(t, gone.Close())

	cases := []struct {
		name   string
		server where
		env    string
		dsn    string
		reason []string // what the reason contains; none: there is none
	}{
		{name: "default answers",
			server: where{Name: "Redis", Env: "X_DSN", Default: "redis://" + up + "/0"},
			dsn:    "redis://" + up + "/0"},
		{name: "variable overrides the default",
			server: where{Name: "PostgreSQL", Env: "X_DSN", Default: "postgres://postgres@" + down + "/test"},
			env:    "postgres://postgres@" + up + "/test?sslmode=disable",
			dsn:    "postgres://postgres@" + up + "/test?sslmode=disable"},
		{name: "default does not answer",
			server: where{Name: "MariaDB/MySQL", Env: "X_DSN", Default: "mysql://root@" + down + "/test"},
			reason: []string{"MariaDB/MySQL", down, "X_DSN", "the default"}},
		{name: "variable does not answer, and its password is not shown",
			server: where{Name: "PostgreSQL", Env: "X_DSN", Default: "postgres://postgres@" + up + "/test"},
			env:    "postgres://bob:s3cret@" + down + "/test",
			reason: []string{"PostgreSQL", down, "from X_DSN", "bob:xxxxx@"}},
		{name: "the server's port when the DSN names none",
			server: where{Name: "Redis", Env: "X_DSN", Default: "redis://127.0.0.1/0", port: portOf(t, down)},
			reason: []string{down}},
		{name: "a DSN without a host",
			server: where{Name: "Redis", Env: "X_DSN", Default: "redis:///0"},
			reason: []string{"no host", "X_DSN"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			getenv := func(k string) string {
				if k == tc.server.Env {
					return tc.env
				}
				return ""
			}
			dsn, reason := tc.server.lookup(getenv, time.Second)
			assert.Equal(t, tc.dsn, dsn)
			if len(tc.reason) == 0 {
				assert.Empty(t, reason)
			}
			for _, want := range tc.reason {
				assert.Contains(t, reason, want)
			}
			assert.NotContains(t, reason, "s3cret")
		})
	}
}

func portOf(t *testing.T, addr string) string {
	t.Helper()
	_, port, err := net.SplitHostPort(addr)
	require.NoError(t, err)
	return port
}

// TestServersDefaultToLoopback: each known server's default is the
// loopback server .ci/run starts, under the variable CI exports.
func TestServersDefaultToLoopback(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		s         *Server
		env, addr string
	}{
		{Postgres(), "FENCECHECK_POSTGRES_DSN", "127.0.0.1:5432"},
		{MySQL(), "FENCECHECK_MYSQL_DSN", "127.0.0.1:3306"},
		{Redis(), "FENCECHECK_REDIS_DSN", "127.0.0.1:6379"},
	} {
		t.Run(tc.s.Name, func(t *testing.T) {
			assert.Equal(t, tc.env, tc.s.Env)
			addr, err := tc.s.addr(tc.s.Default)
			require.NoError(t, err)
			assert.Equal(t, tc.addr, addr)
		})
	}
}
