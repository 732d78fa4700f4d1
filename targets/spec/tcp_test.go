package targetspec

import (
	"net"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestProxiedSpec: the spec's host:port is replaced by the proxy's and
// the rest kept; the upstream is the address the client would have
// dialled, with the scheme's default port.
func TestProxiedSpec(t *testing.T) {
	t.Parallel()
	const proxy = "127.0.0.1:4000"
	cases := []struct {
		spec, upstream, proxied, err string
	}{
		{spec: "postgres://postgres:s3cret@127.0.0.1:5432/test?sslmode=disable",
			upstream: "127.0.0.1:5432", proxied: "postgres://postgres:s3cret@127.0.0.1:4000/test?sslmode=disable"},
		{spec: "postgresql://u@db.example/test", upstream: "db.example:5432", proxied: "postgresql://u@127.0.0.1:4000/test"},
		{spec: "mysql://root@127.0.0.1/test", upstream: "127.0.0.1:3306", proxied: "mysql://root@127.0.0.1:4000/test"},
		{spec: "redis://127.0.0.1:6380/2", upstream: "127.0.0.1:6380", proxied: "redis://127.0.0.1:4000/2"},
		{spec: "http://localhost:8080/base", upstream: "localhost:8080", proxied: "http://127.0.0.1:4000/base"},
		{spec: "http://[::1]:8080", upstream: "[::1]:8080", proxied: "http://127.0.0.1:4000"},
		{spec: "nats://u:s3cret@127.0.0.1:4222", upstream: "127.0.0.1:4222", proxied: "nats://u:s3cret@127.0.0.1:4000"},
		{spec: "nats://127.0.0.1", upstream: "127.0.0.1:4222", proxied: "nats://127.0.0.1:4000"},
		{spec: "nats://embedded", err: "private NATS server's port is chosen when it starts"},
		{spec: "s3://127.0.0.1:9000/bkt?region=x", upstream: "127.0.0.1:9000", proxied: "s3://127.0.0.1:4000/bkt?region=x"},
		{spec: "s3://127.0.0.1:9000/bkt?tls=true", err: "reached over TLS"},
		{spec: "memory://fenced", err: "needs a target reached over TCP"},
		{spec: "sqlite:///tmp/x.db", err: "not sqlite://"},
		{spec: "https://example.com", err: "not https://"},
		{spec: "postgres://u@/test", err: "names no single host:port"},
		{spec: "postgres://u@127.0.0.1/test?host=/run/postgresql", err: `parameter "host"`},
		{spec: "postgres://u@h1:5432,h2:5432/test", err: "names no single host:port"},
	}
	for _, tc := range cases {
		t.Run(tc.spec, func(t *testing.T) {
			t.Parallel()
			up, proxied, err := proxiedSpec(tc.spec, proxy)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				assert.NotContains(t, err.Error(), "s3cret")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.upstream, up)
			assert.Equal(t, tc.proxied, proxied)
		})
	}
}

// FuzzProxiedSpec: whatever the spec, a rewritten one reaches the proxy,
// keeps the scheme, user, path and query, and names an upstream
// host:port.
func FuzzProxiedSpec(f *testing.F) {
	for _, s := range []string{"postgres://postgres@127.0.0.1:5432/test?sslmode=disable", "mysql://root:pw@127.0.0.1/test",
		"redis://127.0.0.1:6379/0", "http://[::1]:80/x?y=1", "memory://fenced", "postgres://u@h1,h2/db", "http://%zz", "redis://:@:/", "nats://u:pw@127.0.0.1:4222", "nats://embedded"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		up, proxied, err := proxiedSpec(spec, "127.0.0.1:4000")
		if err != nil {
			return
		}
		_, _, err = net.SplitHostPort(up)
		require.NoError(t, err, "upstream %q", up)
		u, err := url.Parse(proxied)
		require.NoError(t, err, "%q", proxied)
		o, _ := url.Parse(spec)
		assert.Equal(t, "127.0.0.1:4000", u.Host)
		assert.Equal(t, o.Scheme, u.Scheme)
		assert.Equal(t, o.User.String(), u.User.String())
		assert.Equal(t, o.Path, u.Path)
		assert.Equal(t, o.RawQuery, u.RawQuery)
		assert.True(t, strings.HasPrefix(proxied, o.Scheme+"://"))
	})
}

// TestTCPFaultsNeedATCPTarget: the TCP proxy's faults are refused for
// a target not reached over TCP, in the caller's terms, with the reason.
func TestTCPFaultsNeedATCPTarget(t *testing.T) {
	t.Parallel()
	o := DefaultOptions()
	o.Terms = func(field string) string { return "<" + field + ">" }
	for _, spec := range []string{"memory://fenced", "sqlite://:memory:"} {
		s, err := Parse(spec, o)
		require.NoError(t, err)
		for _, fault := range []string{"net-latency", "net-hold", "net-blackhole", "net-reset"} {
			_, err := s.ParseFaults("pause," + fault)
			require.Error(t, err, spec+" "+fault)
			assert.Contains(t, err.Error(), "<Faults>: "+fault+" acts on the TCP connection to the receiver")
			assert.Contains(t, err.Error(), "needs a target reached over TCP")
			var fe *FieldError
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, "Faults", fe.Field)
		}
	}
	s, err := Parse("postgres://u@127.0.0.1/db", o)
	require.NoError(t, err)
	faults, err := s.ParseFaults("pause,net-reset")
	require.NoError(t, err)
	assert.Len(t, faults, 2)
}
