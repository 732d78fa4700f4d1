package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOpenNetIssuer: a Redis or PostgreSQL spec gives its issuer, named
// without the password, and connects to nothing (port 1 listens on
// nothing); a malformed one, or another scheme, is a usage error that
// does not show the password either.
func TestOpenNetIssuer(t *testing.T) {
	t.Parallel()
	cases := []struct {
		spec string
		name string // the issuer's Name; "" when the spec is refused
	}{
		{"redis://127.0.0.1:1/0", "redis://127.0.0.1:1/0"},
		{"rediss://u:s3cr3t@127.0.0.1:1/2", "rediss://u:xxxxx@127.0.0.1:1/2"},
		{"postgres://postgres:s3cr3t@127.0.0.1:1/test?sslmode=disable", "postgres://postgres:xxxxx@127.0.0.1:1/test?sslmode=disable"},
		{"postgresql://u@127.0.0.1:1/db?password=s3cr3t", "postgresql://u@127.0.0.1:1/db?password=xxxxx"},
		{"redis://u:s3cr3t@127.0.0.1:1/notadb", ""},
		{"postgres://u:s3cr3t@127.0.0.1:1/db?sslmode=bogus", ""},
		{"etcdx://u:s3cr3t@127.0.0.1:1", ""},
		{"s3cr3t", ""},
		{"", ""},
	}
	for _, tc := range cases {
		t.Run(tc.spec, func(t *testing.T) {
			t.Parallel()
			iss, err := openNetIssuer(tc.spec)
			if tc.name == "" {
				require.Error(t, err)
				var u *usageError
				assert.ErrorAs(t, err, &u)
				if strings.Contains(tc.spec, "://") {
					assert.NotContains(t, err.Error(), "s3cr3t")
				}
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.name, iss.Name())
		})
	}
}

// FuzzOpenNetIssuer: whatever the spec, openNetIssuer does not panic, and
// neither its error nor its issuer's name shows the password.
func FuzzOpenNetIssuer(f *testing.F) {
	f.Add("redis", "127.0.0.1:6379", "/0")
	f.Add("postgres", "h:5432", "/db?sslmode=disable")
	f.Add("postgresql", "[::1", "/x")
	f.Add("rediss", "h", "/%zz")
	f.Fuzz(func(t *testing.T, scheme, host, rest string) {
		const pw = "PWMARK"
		if strings.Contains(scheme+host+rest, pw[:2]) {
			return
		}
		spec := scheme + "://user:" + pw + "@" + host + rest
		iss, err := openNetIssuer(spec)
		if err != nil {
			if strings.Contains(err.Error(), pw) {
				t.Fatalf("%q: error %q shows the password", spec, err)
			}
			return
		}
		if strings.Contains(iss.Name(), pw) {
			t.Fatalf("%q: name %q shows the password", spec, iss.Name())
		}
	})
}
