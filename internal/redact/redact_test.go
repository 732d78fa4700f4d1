package redact

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSpec(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, in, want string }{
		{"memory", "memory://fenced", "memory://fenced"},
		{"sqlite path", "sqlite:///tmp/x.db", "sqlite:///tmp/x.db"},
		{"sqlite in memory, which url.Parse refuses", "sqlite://:memory:", "sqlite://:memory:"},
		{"sqlite path with a percent sign", "sqlite:///tmp/100%.db", "sqlite:///tmp/100%.db"},
		{"user without password", "postgres://user@127.0.0.1:5432/db", "postgres://user@127.0.0.1:5432/db"},
		{"empty password", "http://alice:@127.0.0.1:80/", "http://alice:@127.0.0.1:80/"},
		{"userinfo password", "http://alice:Sekr11t@127.0.0.1:8080/api", "http://alice:xxxxx@127.0.0.1:8080/api"},
		{"percent-encoded password", "mysql://root:p%40ss%3Aw@127.0.0.1:3306/test", "mysql://root:xxxxx@127.0.0.1:3306/test"},
		{"password and harmless query kept in order", "postgres://user:pw@h/db?sslmode=disable&application_name=fc",
			"postgres://user:xxxxx@h/db?sslmode=disable&application_name=fc"},
		{"password parameter", "postgresql://user@127.0.0.1/db?password=pw", "postgresql://user@127.0.0.1/db?password=xxxxx"},
		{"token parameter", "http://h:1/?token=t0k3n", "http://h:1/?token=xxxxx"},
		{"credential names, any case", "http://h/?API_KEY=a&b=1&Access_Token=c&sslpassword=d&passwd=e&pwd=f&secret=g&auth=h&key=i",
			"http://h/?API_KEY=xxxxx&b=1&Access_Token=xxxxx&sslpassword=xxxxx&passwd=xxxxx&pwd=xxxxx&secret=xxxxx&auth=xxxxx&key=xxxxx"},
		{"escaped parameter name", "http://h/?api%5Fkey=a", "http://h/?api%5Fkey=xxxxx"},
		{"empty credential value", "http://h/?token=&x=1", "http://h/?token=&x=1"},
		{"fragment parameters", "http://h/#access_token=abc&state=1", "http://h/#access_token=xxxxx&state=1"},
		{"unparsable with a password", "mysql://root:pw@[::1:3306/test", "mysql://(unparsable)"},
		{"unparsable escape with a query", "http://h/%zz?token=abc", "http://(unparsable)"},
		{"no scheme, user and password", "alice:pw@host", "(unparsable target spec)"},
		{"no scheme, a word", "fenced", "fenced"},
		{"a word with settings", "redis?appendonly=yes&appendfsync=always", "redis?appendonly=yes&appendfsync=always"},
		{"a word with a credential-like setting", "redis?requirepass=x&token=t0k", "redis?requirepass=xxxxx&token=xxxxx"},
		{"a word with settings and userinfo", "redis?a=b@c", "(unparsable target spec)"},
		{"bad scheme with userinfo", "1x://a:b@h/%zz", "(unparsable target spec)"},
		{"no scheme: what follows # is a fragment", "#://user:pw@00", "(unparsable target spec)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, Spec(tc.in))
		})
	}
}

func TestName(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"password", "PASSWORD", "passwd", "pwd", "sslpassword", "token", "access_token", "key", "api_key",
		"apikey", "secret", "client_secret", "auth", "Authorization", "Proxy-Authorization", "Cookie", "X-Api-Key", "X-Auth-Token", "X-Amz-Signature"} {
		assert.True(t, Name(name), name)
	}
	for _, name := range []string{"sslmode", "application_name", "Accept", "Content-Type", "X-Tenant", "connect_timeout", ""} {
		assert.False(t, Name(name), name)
	}
}

func TestSecrets(t *testing.T) {
	t.Parallel()
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte("bob:b4sic"))
	cases := []struct {
		name   string
		spec   string
		header http.Header
		want   []string // each must be listed
		not    []string // none may be listed
	}{
		{"none", "memory://fenced", nil, nil, []string{""}},
		{"userinfo, every form", "http://alice:p%40ss@h/", nil, []string{"p%40ss", "p@ss", base64.StdEncoding.EncodeToString([]byte("alice:p@ss"))}, []string{"alice"}},
		{"unparsable spec", "mysql://root:hunter2@[::1:3306/test", nil, []string{"hunter2"}, nil},
		{"query", "http://h/?token=t%2Bk&mode=x", nil, []string{"t%2Bk", "t+k"}, []string{"x"}},
		{"bearer", "http://h/", http.Header{"Authorization": {"Bearer abc123"}}, []string{"Bearer abc123", "abc123"}, []string{"Bearer"}},
		{"basic", "http://h/", http.Header{"Authorization": {basic}}, []string{basic, "bob:b4sic", "b4sic"}, []string{"bob"}},
		{"a header that is not credential-like", "http://h/", http.Header{"Accept": {"text/plain"}}, nil, []string{"text/plain"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := Secrets(tc.spec, tc.header)
			for _, w := range tc.want {
				assert.Contains(t, got, w)
			}
			for _, n := range tc.not {
				assert.NotContains(t, got, n)
			}
			for i := 1; i < len(got); i++ {
				assert.GreaterOrEqual(t, len(got[i-1]), len(got[i]), "longest first: %q", got)
			}
		})
	}
}

// TestSpecHidesEverySecret: whatever Secrets lists is gone from Spec.
func TestSpecHidesEverySecret(t *testing.T) {
	t.Parallel()
	for _, spec := range []string{
		"http://alice:Sekr11t@127.0.0.1:8080/api?token=t0k3n&x=1",
		"postgres://u:p%2Fw@h/db?sslpassword=s3cr3t%21",
		"mysql://root:pw@[::1:3306/test",
	} {
		t.Run(spec, func(t *testing.T) {
			t.Parallel()
			red := Spec(spec)
			for _, s := range Secrets(spec, nil) {
				assert.NotContains(t, red, s)
			}
		})
	}
}

var errSentinel = errors.New("sentinel")

func TestErrorScrubsAndUnwraps(t *testing.T) {
	t.Parallel()
	secrets := Secrets("mysql://root:hunter2@127.0.0.1/test?token=zz9", nil)
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"password", fmt.Errorf("login as root:hunter2 failed: %w", errSentinel), "login as root:xxxxx failed: sentinel"},
		{"query value", fmt.Errorf(`Get "http://h/r?token=zz9": %w`, errSentinel), `Get "http://h/r?token=xxxxx": sentinel`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := Error(tc.err, secrets)
			assert.EqualError(t, err, tc.want)
			assert.ErrorIs(t, err, errSentinel)
		})
	}
	assert.NoError(t, Error(nil, secrets))
	assert.Same(t, errSentinel, Error(errSentinel, nil))
}

// FuzzSpec builds specs around a password and a query value that carry
// markers: neither marker may survive Spec (the value's when its name is
// credential-like), nor Scrub with what Secrets lists; Spec is stable.
func FuzzSpec(f *testing.F) {
	f.Add("alice", "Sekr11t", "token", "t0k", "/api")
	f.Add("", "p@ss:w/rd%", "API_KEY", "a&b=c", "")
	f.Add("u", "", "mode", "x", "/%zz")
	f.Fuzz(func(t *testing.T, user, pw, name, value, path string) {
		if strings.Contains(user+name+path, "MARK") {
			return
		}
		pw, value = "PWMARK"+pw, "QVMARK"+value
		spec := "http://" + url.UserPassword(user, pw).String() + "@h:1" + path + "?" + url.QueryEscape(name) + "=" + url.QueryEscape(value)
		red := Spec(spec)
		if strings.Contains(red, "PWMARK") || Name(name) && strings.Contains(red, "QVMARK") {
			t.Fatalf("%q: Spec gives %q", spec, red)
		}
		if Spec(red) != red {
			t.Fatalf("%q: Spec gives %q, and again %q", spec, red, Spec(red))
		}
		scrubbed := Scrub("error at "+spec, Secrets(spec, nil))
		if strings.Contains(scrubbed, "PWMARK") || Name(name) && strings.Contains(scrubbed, "QVMARK") {
			t.Fatalf("%q: Scrub gives %q", spec, scrubbed)
		}
	})
}
