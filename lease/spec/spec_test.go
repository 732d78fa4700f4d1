package leasespec_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	etcdlease "github.com/fencecheck/fencecheck/lease/etcd"
	"github.com/fencecheck/fencecheck/lease/etcd/embedded"
	pglease "github.com/fencecheck/fencecheck/lease/postgres"
	redislease "github.com/fencecheck/fencecheck/lease/redis"
	leasespec "github.com/fencecheck/fencecheck/lease/spec"
)

// TestParsePrivateNATS: "nats" runs the private server by the command
// the options give, and says which fsync it has.
func TestParsePrivateNATS(t *testing.T) {
	t.Parallel()
	opts := leasespec.DefaultOptions()
	opts.NATSCommand = []string{"fencecheck", "nats-server"}
	for spec, want := range map[string]string{
		"nats":             "private nats-server (default fsync, every 2m)",
		"nats?sync=always": "private nats-server (sync_interval: always)",
	} {
		iss, err := leasespec.Parse(spec, opts)
		require.NoError(t, err, spec)
		assert.Equal(t, want, iss.Name())
	}
}

// TestParse: each spec form gives its issuer, named without the password
// and connecting to nothing (port 1 listens on nothing); a malformed one
// is an error that begins with the spec and does not show the password.
func TestParse(t *testing.T) {
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
		{"redis://127.0.0.1:1/0", "redis://127.0.0.1:1/0", false},
		{"rediss://u:s3cr3t@127.0.0.1:1/2", "rediss://u:xxxxx@127.0.0.1:1/2", false},
		{"postgres://postgres:s3cr3t@127.0.0.1:1/test?sslmode=disable", "postgres://postgres:xxxxx@127.0.0.1:1/test?sslmode=disable", false},
		{"postgresql://u@127.0.0.1:1/db?password=s3cr3t", "postgresql://u@127.0.0.1:1/db?password=xxxxx", false},
		{"redis", "private redis-server (RDB snapshots, appendonly no)", false},
		{"redis?", "private redis-server (RDB snapshots, appendonly no)", false},
		{"redis?appendonly=yes", "private redis-server (appendonly yes, appendfsync everysec)", false},
		{"redis?appendonly=yes&appendfsync=always", "private redis-server (appendonly yes, appendfsync always)", false},
		{"redis?save=", "private redis-server (no persistence)", false},
		{"redis?save=60+1", `private redis-server (RDB snapshots at "60 1", appendonly no)`, false},
		{"redis?replicas=1", "private redis-server (RDB snapshots, appendonly no, 1 asynchronous replica)", false},
		{"redis?replicas=1&wait=1", "private redis-server (RDB snapshots, appendonly no, 1 replica; grants wait for it (WAIT 1 500ms), refused otherwise)", false},
		{"redis?replicas=0&wait=0", "private redis-server (RDB snapshots, appendonly no)", false},
		{"redis?wait=1", "redis?wait=1: wait=1 needs as many replicas (replicas=0)", true},
		{"redis?replicas=2", "redis?replicas=2: replicas=2: want 0 or 1", true},
		{"redis?replicas=1&wait=yes", "wait=yes: want 0 or 1", true},
		{"postgres", "private PostgreSQL cluster (synchronous_commit on, fsync on)", false},
		{"postgres?synchronous_commit=off", "private PostgreSQL cluster (synchronous_commit off, fsync on)", false},
		{"postgres?fsync=off&full_page_writes=off", "private PostgreSQL cluster (synchronous_commit on, fsync off, full_page_writes off)", false},
		{"redis?maxmemory=1&bind=0.0.0.0", "redis?maxmemory=1&bind=0.0.0.0: unknown setting bind, maxmemory (a private redis-server takes appendonly, appendfsync, save, replicas, wait)", true},
		{"redis?appendfsync=always", "redis?appendfsync=always: appendfsync=always has no effect without appendonly=yes", true},
		{"redis?appendonly=maybe", "appendonly=maybe: want yes or no", true},
		{"redis?appendonly=yes&appendfsync=sometimes", "appendfsync=sometimes: want always, everysec or no", true},
		{"redis?appendonly=yes&appendonly=no", "setting appendonly given 2 times", true},
		{"redis?save=60", `save=60: want pairs of seconds and changes`, true},
		{"redis?%zz", `redis?%zz: settings "%zz": invalid URL escape`, true},
		{"postgres?port=1", "postgres?port=1: unknown setting port (a private PostgreSQL cluster takes synchronous_commit, fsync, full_page_writes, standby)", true},
		{"postgres?synchronous_commit=maybe", "synchronous_commit=maybe: want on, off, local, remote_write or remote_apply", true},
		{"postgres?fsync=no", "fsync=no: want on or off", true},
		{"postgres?standby=sync", "private PostgreSQL cluster (synchronous_commit on, fsync on, a streaming standby (sync))", false},
		{"postgres?standby=async&synchronous_commit=local", "private PostgreSQL cluster (synchronous_commit local, fsync on, a streaming standby (async))", false},
		{"postgres?standby=yes", "standby=yes: want async or sync", true},
		{"redisx", `"redisx" is not a lease spec`, true},
		{"", `"" is not a lease spec (want local, etcd`, true},
		{"bogus://", `"bogus://" is not a lease spec`, true},
		{"Local", `is not a lease spec`, true},
		{"s3cr3t", `is not a lease spec`, true},
		{"etcdx://u:s3cr3t@127.0.0.1:1", `"etcdx://u:xxxxx@127.0.0.1:1" is not a lease spec`, true},
		{"etcd://", `etcd://: "" is not a HOST:PORT endpoint`, true},
		{"etcd://a:1,", `"" is not a HOST:PORT endpoint`, true},
		{"etcd://a", `"a" is not a HOST:PORT endpoint`, true},
		{"etcd://u:s3cr3t@a:1", "takes no user or password", true},
		{"redis://u:s3cr3t@127.0.0.1:6379/notadb", "redis://u:xxxxx@127.0.0.1:6379/notadb: ", true},
		{"postgres://u:s3cr3t@127.0.0.1:1/db?sslmode=bogus", "postgres://u:xxxxx@127.0.0.1:1/db?sslmode=bogus: ", true},
		{"nats://127.0.0.1:1", "nats://127.0.0.1:1", false},
		{"nats://u:s3cr3t@127.0.0.1:1", "nats://u:xxxxx@127.0.0.1:1", false},
		{"nats://u:s3cr3t@127.0.0.1", "nats://u:xxxxx@127.0.0.1: want nats://[user:password@]HOST:PORT", true},
		{"nats://127.0.0.1:1/x?y=1", "with no path or parameters", true},
		{"nats", "nats: no command runs the private NATS server", true},
		{"nats?sync=sometimes", `sync="sometimes": the only setting is sync=always`, true},
		{"nats?port=1", "the private NATS server takes one setting, sync=always", true},
	}
	for _, tc := range cases {
		t.Run(tc.spec, func(t *testing.T) {
			t.Parallel()
			iss, err := leasespec.Parse(tc.spec, leasespec.DefaultOptions())
			if tc.err {
				require.Error(t, err)
				if tc.spec != "s3cr3t" {
					assert.Contains(t, err.Error(), tc.want)
					assert.NotContains(t, err.Error(), "s3cr3t")
				}
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

// FuzzParse: every spec gives an issuer of its kind or an error, and an
// etcd:// spec's endpoints are the list it gave.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"local", "etcd", "etcd://a:1,b:2", "etcd://", "redis://h:1", "postgres://u:p@h/db", "x", "", "redis", "redis?appendonly=yes", "postgres?fsync=off", "postgres?standby=sync", "redis?replicas=1&wait=1", "nats://h:1", "nats?sync=always"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		iss, err := leasespec.Parse(spec, leasespec.DefaultOptions())
		switch {
		case err != nil:
		case spec == leasespec.Local:
			if iss != nil {
				t.Fatalf("local gave %s", iss.Name())
			}
		case spec == "etcd":
			if _, ok := iss.(*embedded.Issuer); !ok {
				t.Fatalf("etcd gave %T", iss)
			}
		case spec == "redis" || strings.HasPrefix(spec, "redis?"):
			p, ok := iss.(*redislease.PrivateIssuer)
			if !ok {
				t.Fatalf("%q gave %T", spec, iss)
			}
			if s := p.Settings; s.Wait > s.Replicas || s.Replicas > 1 {
				t.Fatalf("%q gave wait=%d with replicas=%d", spec, s.Wait, s.Replicas)
			}
		case spec == "postgres" || strings.HasPrefix(spec, "postgres?"):
			if _, ok := iss.(*pglease.PrivateIssuer); !ok {
				t.Fatalf("%q gave %T", spec, iss)
			}
		case strings.HasPrefix(spec, "zookeeper"):
			checkZooKeeper(t, spec, iss)
		case strings.HasPrefix(spec, "redis") || strings.HasPrefix(spec, "postgres") || strings.HasPrefix(spec, "nats://"):
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

// FuzzParseNet: whatever a Redis or PostgreSQL spec holds, Parse does not
// panic, and neither its error nor its issuer's name shows the password.
func FuzzParseNet(f *testing.F) {
	f.Add("redis", "127.0.0.1:6379", "/0")
	f.Add("postgres", "h:5432", "/db?sslmode=disable")
	f.Add("postgresql", "[::1", "/x")
	f.Add("rediss", "h", "/%zz")
	f.Add("nats", "127.0.0.1:4222", "")
	f.Fuzz(func(t *testing.T, scheme, host, rest string) {
		const pw = "PWMARK"
		if strings.Contains(scheme+host+rest, pw[:2]) {
			return
		}
		spec := scheme + "://user:" + pw + "@" + host + rest
		iss, err := leasespec.Parse(spec, leasespec.DefaultOptions())
		if err != nil {
			if strings.Contains(err.Error(), pw) {
				t.Fatalf("%q: error %q shows the password", spec, err)
			}
			return
		}
		if iss != nil && strings.Contains(iss.Name(), pw) {
			t.Fatalf("%q: name %q shows the password", spec, iss.Name())
		}
	})
}
