package httpserver

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseHost(t *testing.T) {
	t.Parallel()
	cases := []struct {
		header, want, err string
	}{
		{"localhost", "localhost", ""},
		{"LocalHost.:8080", "localhost", ""},
		{"app.localhost:1", "app.localhost", ""},
		{"127.0.0.1", "127.0.0.1", ""},
		{"127.9.9.9:65535", "127.9.9.9", ""},
		{"[::1]:8787", "::1", ""},
		{"[0:0::1]", "::1", ""},
		{"localhost:", "", "a colon and no port"},
		{"evil.example:80", "evil.example", ""},
		{"", "", "no host"},
		{"::1", "", "must be in brackets"},
		{"[::1", "", "no ]"},
		{"[::1]x", "", `"x" after the IPv6 address`},
		{"[127.0.0.1]", "", "not an IPv6 address"},
		{"[fe80::1%eth0]", "", "not an IPv6 address"},
		{"localhost:99999", "", "above 65535"},
		{"localhost:8a", "", "not a number"},
		{"local host", "", "not a host name"},
		{"evil%2eexample", "", "not a host name"},
		{"user@localhost", "", "not a host name"},
		{".localhost", "", "not a host name"},
		{"a..localhost", "", "not a host name"},
		{"localhost..", "", "not a host name"},
	}
	for _, c := range cases {
		t.Run(c.header, func(t *testing.T) {
			t.Parallel()
			got, err := ParseHost(c.header)
			if c.err != "" {
				require.ErrorContains(t, err, c.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.want, got)
		})
	}
}

func TestIsLoopback(t *testing.T) {
	t.Parallel()
	for host, want := range map[string]bool{
		"localhost": true, "a.b.localhost": true, "127.0.0.1": true, "127.255.0.1": true,
		"::1": true, "::ffff:127.0.0.1": true,
		"notlocalhost": false, "localhost.example": false, "128.0.0.1": false, "::2": false, "0.0.0.0": false,
	} {
		t.Run(host, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, want, isLoopback(host))
		})
	}
}

// FuzzParseHost: ParseHost never panics, and what it returns is canonical:
// parsing it again (in brackets for IPv6) gives it back, with or without a
// port, and it is in lower case.
func FuzzParseHost(f *testing.F) {
	for _, s := range []string{"localhost", "LOCALHOST.:80", "[::1]:8080", "127.0.0.1:0", "a.localhost", "[::ffff:127.0.0.1]", "x:y:z", "[", "%41"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, header string) {
		host, err := ParseHost(header)
		if err != nil {
			return
		}
		require.Equal(t, strings.ToLower(host), host)
		again := host
		if strings.Contains(host, ":") {
			again = "[" + host + "]"
		}
		for _, h := range []string{again, again + ":1"} {
			got, err := ParseHost(h)
			require.NoError(t, err, "ParseHost(%q) gave %q, which does not parse", header, host)
			require.Equal(t, host, got, "ParseHost(%q)", h)
		}
	})
}
