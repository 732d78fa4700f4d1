package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	etcdlease "github.com/fencecheck/fencecheck/lease/etcd"
	"github.com/fencecheck/fencecheck/lease/etcd/embedded"
)

func TestParseLeases(t *testing.T) {
	t.Parallel()
	cases := []struct {
		spec string
		want string // the issuer's Name, "" for local, or the error
		err  bool
	}{
		{"local", "", false},
		{"etcd", "embedded etcd (3 members)", false},
		{"etcd://127.0.0.1:2379", "etcd (1 endpoints)", false},
		{"etcd://a:1,b:2,[::1]:3", "etcd (3 endpoints)", false},
		{"", `--leases: "" is not a lease spec`, true},
		{"bogus://", `--leases: "bogus://" is not a lease spec`, true},
		{"Local", `is not a lease spec`, true},
		{"etcd://", `"" is not a HOST:PORT endpoint`, true},
		{"etcd://a:1,", `"" is not a HOST:PORT endpoint`, true},
		{"etcd://a", `"a" is not a HOST:PORT endpoint`, true},
		{"etcd://u:pw@a:1", "takes no user or password", true},
		{"redis://u:pw@127.0.0.1:6379/0", "redis://u:xxxxx@127.0.0.1:6379/0", false},
		{"postgres://u:pw@127.0.0.1:5432/test", "postgres://u:xxxxx@127.0.0.1:5432/test", false},
		{"redis://u:secret@127.0.0.1:6379/notadb", "--leases redis://u:xxxxx@127.0.0.1:6379/notadb", true},
	}
	for _, tc := range cases {
		t.Run(tc.spec, func(t *testing.T) {
			t.Parallel()
			iss, err := parseLeases(tc.spec)
			if tc.err {
				var ue *usageError
				require.True(t, errors.As(err, &ue), "%v is a usage error", err)
				assert.Contains(t, err.Error(), tc.want)
				assert.NotContains(t, err.Error(), "secret")
				assert.NotContains(t, err.Error(), "pw")
				return
			}
			require.NoError(t, err)
			if tc.want == "" {
				assert.Nil(t, iss)
				return
			}
			assert.Equal(t, tc.want, iss.Name())
		})
	}
}

// FuzzParseLeases: every spec gives an issuer or a usage error naming
// --leases, and an etcd:// spec's endpoints are the list it gave.
func FuzzParseLeases(f *testing.F) {
	for _, s := range []string{"local", "etcd", "etcd://a:1,b:2", "etcd://", "redis://h:1", "postgres://u:p@h/db", "x", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		iss, err := parseLeases(spec)
		var ue *usageError
		switch {
		case err != nil && (!errors.As(err, &ue) || !strings.HasPrefix(err.Error(), "--leases")):
			t.Fatalf("%q: %v is not a usage error naming --leases", spec, err)
		case err != nil:
		case spec == "local":
			if iss != nil {
				t.Fatalf("local gave %s", iss.Name())
			}
		case spec == "etcd":
			if _, ok := iss.(*embedded.Issuer); !ok {
				t.Fatalf("etcd gave %T", iss)
			}
		case strings.HasPrefix(spec, "redis") || strings.HasPrefix(spec, "postgres"):
			if iss == nil || !strings.Contains(iss.Name(), "://") {
				t.Fatalf("%q gave %v", spec, iss)
			}
		default:
			e, ok := iss.(*etcdlease.Issuer)
			if !ok || strings.Join(e.Endpoints, ",") != strings.TrimPrefix(spec, "etcd://") {
				t.Fatalf("%q accepted as %T %v", spec, iss, iss)
			}
		}
	})
}
