package s3target

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzLayout: any token and value round-trip through the object layout,
// and decode never panics on any content; what it accepts has the
// 20-digit token line.
func FuzzLayout(f *testing.F) {
	f.Add(uint64(0), "", "00000000000000000000\n")
	f.Add(uint64(1<<64-1), "a\nb", "18446744073709551616\nx")
	f.Add(uint64(42), "v", "42\nv")
	f.Add(uint64(7), "", "-0000000000000000001\n")
	f.Fuzz(func(t *testing.T, token uint64, value, content string) {
		tok, v, err := decode(encode(token, value))
		require.NoError(t, err)
		assert.Equal(t, token, tok)
		assert.Equal(t, value, v)
		tok, v, err = decode(content)
		if err != nil {
			return
		}
		line, rest, _ := strings.Cut(content, "\n")
		assert.Len(t, line, tokenDigits)
		assert.Equal(t, rest, v)
		assert.Equal(t, formatToken(tok), line)
	})
}

// FuzzParseSpec: the spec parser never panics, and a spec it accepts
// names either the embedded store or a host:port, and a valid bucket or
// none; its errors never quote the password of a spec's user information.
func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{"s3://embedded/fc", "s3://embedded", "s3://127.0.0.1:9000/bkt?region=eu-west-1&tls=true",
		"s3://127.0.0.1:9000", "s3://u:s3cretpw@h:1/b", "s3://h:1/B", "s3://[::1]:9000/bkt", "s3://h:1/b?region=", "s3://embedded/x?tls=true"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		l, err := parseSpec(spec)
		if err != nil {
			if strings.HasPrefix(spec, "s3://u:s3cretpw@") {
				assert.NotContains(t, err.Error(), "s3cretpw")
			}
			return
		}
		assert.True(t, l.embedded != (l.host != ""), "embedded or a host: %+v", l)
		if l.embedded {
			if l.bucket != "" {
				assert.Regexp(t, bucketName, l.runBucket(), "the run's bucket is a valid name")
			}
		} else if l.bucket != "" {
			assert.Regexp(t, bucketName, l.bucket)
		}
	})
}
