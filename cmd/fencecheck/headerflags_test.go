package main

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
)

func TestRequestHeader(t *testing.T) {
	t.Parallel()
	dir := schema.TempDir(t)
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
		return p
	}
	good, crlf := write("good", "bob:pw:with:colons\n"), write("crlf", "bob:pw\r\n")
	noColon, twoLines := write("nocolon", "s3cret\n"), write("twolines", "bob:s3cret\nmore\n")
	cases := []struct {
		name     string
		spec     string
		headers  []string
		authFile string
		want     http.Header
		err      string
	}{
		{"nothing", "http://h", nil, "", http.Header{}, ""},
		{"repeated header", "http://h", []string{"X-A: 1", "x-a: 2"}, "", http.Header{"X-A": {"1", "2"}}, ""},
		{"basic-auth file", "http://h", nil, good, http.Header{"Authorization": {"Basic Ym9iOnB3OndpdGg6Y29sb25z"}}, ""},
		{"basic-auth file with CRLF", "http://h", nil, crlf, http.Header{"Authorization": {"Basic Ym9iOnB3"}}, ""},
		{"basic-auth file missing", "http://h", nil, filepath.Join(dir, "missing"), nil, "--basic-auth-file " + filepath.Join(dir, "missing") + ": open"},
		{"basic-auth file without colon", "http://h", nil, noColon, nil, "--basic-auth-file " + noColon + ": want user:password"},
		{"basic-auth file of two lines", "http://h", nil, twoLines, nil, "more lines"},
		{"basic-auth file and userinfo", "http://a:b@h", nil, good, nil, "--basic-auth-file: the target's URL has user information"},
		{"basic-auth file and Authorization", "http://h", []string{"Authorization: Bearer x"}, good, nil, "--header: Authorization given with --basic-auth-file"},
		{"userinfo and Authorization", "http://a:b@h", []string{"authorization: Bearer x"}, "", nil, "--header: Authorization given with user information"},
		{"bad header", "http://h", []string{"nocolon"}, "", nil, "--header: want"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := httpFlags{headers: tc.headers, basicAuthFile: tc.authFile}
			got, err := h.requestHeader(tc.spec)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				var u *usageError
				assert.True(t, errors.As(err, &u), "a usage error")
				assert.NotContains(t, err.Error(), "s3cret")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

// TestScrubFlagsSecrets: the last scrub before an error is printed knows
// every credential the flags carry and keeps the error's kind.
func TestScrubFlagsSecrets(t *testing.T) {
	t.Parallel()
	auth := filepath.Join(schema.TempDir(t), "auth")
	require.NoError(t, os.WriteFile(auth, []byte("bob:f1le-pw\n"), 0o600))
	h := httpFlags{headers: []string{"X-Api-Key: k3y-header"}, basicAuthFile: auth}
	err := h.scrub("http://alice:us3r-pw@h/?token=qu3ry", &usageError{errors.New("us3r-pw qu3ry k3y-header f1le-pw")})
	assert.EqualError(t, err, "xxxxx xxxxx xxxxx xxxxx")
	var u *usageError
	assert.True(t, errors.As(err, &u), "still a usage error")
	assert.NoError(t, h.scrub("http://h", nil))
}
