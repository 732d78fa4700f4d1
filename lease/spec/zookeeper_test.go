package leasespec_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/lease"
	leasespec "github.com/fencecheck/fencecheck/lease/spec"
	zklease "github.com/fencecheck/fencecheck/lease/zookeeper"
)

// TestParseZooKeeper: "zookeeper" starts a private server, and
// zookeeper://HOST:PORT,… names the servers of an ensemble the user
// runs; anything else is refused before a run starts, saying what is
// wanted.
func TestParseZooKeeper(t *testing.T) {
	t.Parallel()
	cases := []struct {
		spec, want string
		err        bool
	}{
		{"zookeeper", "private zookeeper", false},
		{"zookeeper://127.0.0.1:2181", "zookeeper://127.0.0.1:2181", false},
		{"zookeeper://a:1,b:2,c:3", "zookeeper://a:1,b:2,c:3", false},
		{"zookeeper?tick=1", "the private ZooKeeper server takes no settings", true},
		{"zookeeper://", `zookeeper://: "" is not a HOST:PORT server`, true},
		{"zookeeper://a", `"a" is not a HOST:PORT server`, true},
		{"zookeeper://a:1/chroot", `"a:1/chroot" is not a HOST:PORT server`, true},
		{"zookeeper://a:1,", `"" is not a HOST:PORT server`, true},
		{"zookeeper://u:p@a:1", "takes no user or password", true},
		{"zookeeperx", `"zookeeperx" is not a lease spec`, true},
	}
	for _, tc := range cases {
		t.Run(tc.spec, func(t *testing.T) {
			t.Parallel()
			iss, err := leasespec.Parse(tc.spec, leasespec.DefaultOptions())
			if tc.err {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.want)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, iss.Name())
			checkZooKeeper(t, tc.spec, iss)
		})
	}
}

// checkZooKeeper fails t unless iss is the issuer of the zookeeper spec:
// the private server's, or one whose servers are the spec's list.
func checkZooKeeper(t *testing.T, spec string, iss lease.Issuer) {
	t.Helper()
	if spec == "zookeeper" {
		if _, ok := iss.(*zklease.PrivateIssuer); !ok {
			t.Fatalf("%q gave %T", spec, iss)
		}
		return
	}
	z, ok := iss.(*zklease.Issuer)
	if !ok || strings.Join(z.Servers, ",") != strings.TrimPrefix(spec, "zookeeper://") {
		t.Fatalf("%q accepted as %T %v", spec, iss, iss)
	}
}

// FuzzParseZooKeeper: a zookeeper spec gives the issuer of the servers it
// lists, or an error; never a panic.
func FuzzParseZooKeeper(f *testing.F) {
	for _, s := range []string{"zookeeper", "zookeeper://a:1", "zookeeper://a:1,b:2", "zookeeper://", "zookeeper?x", "zookeeper://[::1]:2181"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		iss, err := leasespec.Parse(spec, leasespec.DefaultOptions())
		if err == nil && strings.HasPrefix(spec, "zookeeper") {
			checkZooKeeper(t, spec, iss)
		}
	})
}
