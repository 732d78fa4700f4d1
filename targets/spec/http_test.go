package targetspec

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/internal/redact"
)

// TestRequestHeader: the header and the Basic authentication file become
// the header of every request; what cannot be sent is refused naming the
// field (here as the CLI's flags) and never a value.
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
			o := DefaultOptions()
			o.HTTP.Header, o.HTTP.BasicAuthFile, o.Terms = tc.headers, tc.authFile, flags
			s, err := Parse(tc.spec, o)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				var fe *FieldError
				assert.True(t, errors.As(err, &fe), "a field's error")
				assert.NotContains(t, err.Error(), "s3cret")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, s.header)
		})
	}
}

// flags are the CLI's words for the fields, to hold the messages to
// what the CLI prints.
func flags(field string) string {
	return map[string]string{"Spec": "--target", "HTTP.Header": "--header", "HTTP.BasicAuthFile": "--basic-auth-file",
		"Exec.Command": "--exec", "Exec.Ready": "--ready", "Exec.LogFail": "--log-fail", "HTTP.Adapter": "--adapter",
		"HTTP.Timeout": "--request-timeout", "SQL": "--sql-* flags", "SQL.Timeout": "--sql-timeout", "Redis": "--redis-* flags",
		"Redis.Timeout": "--redis-timeout", "Faults": "--nemesis", "S3": "--s3-mode"}[field]
}

// TestSecretsKnowEveryCredential: what a caller masks in an error knows
// the spec's password and query secrets, the header values and the
// Basic authentication file's content.
func TestSecretsKnowEveryCredential(t *testing.T) {
	t.Parallel()
	auth := filepath.Join(schema.TempDir(t), "auth")
	require.NoError(t, os.WriteFile(auth, []byte("bob:f1le-pw\n"), 0o600))
	secrets := Secrets("http://alice:us3r-pw@h/?token=qu3ry", HTTPOptions{Header: []string{"X-Api-Key: k3y-header"}, BasicAuthFile: auth})
	err := redact.Error(errors.New("us3r-pw qu3ry k3y-header f1le-pw"), secrets)
	assert.EqualError(t, err, "xxxxx xxxxx xxxxx xxxxx")
}
