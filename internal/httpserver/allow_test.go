package httpserver

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var ok = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "served") })

// serve sends one request for host through AllowHosts(ok, p).
func serve(t *testing.T, p HostPolicy, host string) (int, string) {
	t.Helper()
	h, err := AllowHosts(ok, p)
	require.NoError(t, err)
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.Host = host
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Code, w.Body.String()
}

func TestAllowHosts(t *testing.T) {
	t.Parallel()
	hint := func(host string) string { return "add " + host }
	cases := []struct {
		name   string
		policy HostPolicy
		host   string
		served bool
	}{
		{"localhost", HostPolicy{}, "localhost:8080", true},
		{"localhost without port", HostPolicy{}, "localhost", true},
		{"a name under localhost", HostPolicy{}, "run.localhost:1", true},
		{"127.0.0.1", HostPolicy{}, "127.0.0.1:8787", true},
		{"127.0.0.0/8", HostPolicy{}, "127.3.2.1", true},
		{"[::1]", HostPolicy{}, "[::1]:8787", true},
		{"evil.example", HostPolicy{}, "evil.example", false},
		{"evil.example with a port", HostPolicy{}, "evil.example:8787", false},
		{"a LAN address", HostPolicy{}, "192.168.1.5:8787", false},
		{"no host", HostPolicy{}, "", false},
		{"malformed", HostPolicy{}, "localhost@evil.example", false},
		{"a given name", HostPolicy{Names: []string{"Box.Lan"}}, "box.lan:9", true},
		{"a given IPv6", HostPolicy{Names: []string{"2001:db8::1"}}, "[2001:db8::1]:80", true},
		{"a given name, another host", HostPolicy{Names: []string{"box.lan"}}, "evil.example", false},
		{"the listen host", HostPolicy{Listen: "192.168.1.5:8787"}, "192.168.1.5:8787", true},
		{"the listen name", HostPolicy{Listen: "box.lan:8787"}, "box.lan", true},
		{"an unspecified listen host", HostPolicy{Listen: "0.0.0.0:8787"}, "0.0.0.0:8787", false},
		{"an empty listen host", HostPolicy{Listen: ":8787"}, "evil.example", false},
		{"a listen host with a zone", HostPolicy{Listen: "[fe80::1%eth0]:8787"}, "[fe80::1]:8787", false},
		{"any host", HostPolicy{AnyHost: true}, "evil.example", true},
		{"any host, malformed", HostPolicy{AnyHost: true}, "a b", true},
		{"a hint", HostPolicy{Hint: hint}, "evil.example", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			code, body := serve(t, c.policy, c.host)
			if c.served {
				assert.Equal(t, http.StatusOK, code, body)
				assert.Equal(t, "served", body)
				return
			}
			assert.Equal(t, http.StatusMisdirectedRequest, code)
			assert.Contains(t, body, `does not answer requests for host "`+c.host+`"`)
			assert.Contains(t, body, "DNS rebinding")
			if c.policy.Hint != nil {
				assert.Contains(t, body, "add evil.example\n")
			}
		})
	}
}

func TestAllowHostsNamesWhatItAnswers(t *testing.T) {
	t.Parallel()
	_, body := serve(t, HostPolicy{Names: []string{"box.lan", "localhost"}, Listen: "10.0.0.2:80"}, "evil.example")
	assert.Contains(t, body, "[::1], and box.lan, 10.0.0.2, on any port")
	_, body = serve(t, HostPolicy{Hint: func(string) string { return "HINT" }}, "a b")
	assert.Contains(t, body, "The host is malformed")
	assert.NotContains(t, body, "HINT", "a hint to allow a malformed host would not help")
}

func TestAllowHostsRefusesBadNames(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		policy HostPolicy
		err    string
	}{
		{HostPolicy{Names: []string{"box.lan:80"}}, `allowed host "box.lan:80": host "box.lan:80": names a port`},
		{HostPolicy{Names: []string{"a/b"}}, `allowed host "a/b"`},
		{HostPolicy{Names: []string{""}}, `allowed host "": no host`},
		{HostPolicy{Listen: "8787"}, `listen address "8787"`},
	} {
		t.Run(c.err, func(t *testing.T) {
			t.Parallel()
			_, err := AllowHosts(ok, c.policy)
			require.ErrorContains(t, err, c.err)
		})
	}
}

func TestNewSetsEveryTimeout(t *testing.T) {
	t.Parallel()
	o := Options{Timeouts: Timeouts{ReadHeader: 1 * time.Second, Read: 2 * time.Second, Write: 3 * time.Second, Idle: 4 * time.Second}, MaxHeaderBytes: 5}
	srv, err := New(ok, o)
	require.NoError(t, err)
	assert.Equal(t, 1*time.Second, srv.ReadHeaderTimeout)
	assert.Equal(t, 2*time.Second, srv.ReadTimeout)
	assert.Equal(t, 3*time.Second, srv.WriteTimeout)
	assert.Equal(t, 4*time.Second, srv.IdleTimeout)
	assert.Equal(t, 5, srv.MaxHeaderBytes)

	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.Host = "evil.example"
	w := httptest.NewRecorder()
	srv.Handler.ServeHTTP(w, r)
	assert.Equal(t, http.StatusMisdirectedRequest, w.Code, "the handler is guarded")
}

func TestNewRefusesAMissingLimit(t *testing.T) {
	t.Parallel()
	good := Options{Timeouts: Timeouts{ReadHeader: 1, Read: 1, Write: 1, Idle: 1}, MaxHeaderBytes: 1}
	cases := map[string]func(o *Options){
		"ReadHeader timeout must be positive, not 0s": func(o *Options) { o.Timeouts.ReadHeader = 0 },
		"Read timeout must be positive, not -1s":      func(o *Options) { o.Timeouts.Read = -time.Second },
		"Write timeout must be positive, not 0s":      func(o *Options) { o.Timeouts.Write = 0 },
		"Idle timeout must be positive, not 0s":       func(o *Options) { o.Timeouts.Idle = 0 },
		"MaxHeaderBytes must be positive, not 0":      func(o *Options) { o.MaxHeaderBytes = 0 },
		`allowed host "a b"`:                          func(o *Options) { o.Hosts.Names = []string{"a b"} },
	}
	for want, change := range cases {
		t.Run(want, func(t *testing.T) {
			t.Parallel()
			o := good
			change(&o)
			_, err := New(ok, o)
			require.ErrorContains(t, err, "server options: "+want)
		})
	}
}
