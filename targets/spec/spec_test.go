package targetspec

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/targets"
	"github.com/fencecheck/fencecheck/targets/httptarget/receiver"
	"github.com/fencecheck/fencecheck/targets/process"
	"github.com/fencecheck/fencecheck/targets/redistarget"
	"github.com/fencecheck/fencecheck/targets/s3target"
	sqltarget "github.com/fencecheck/fencecheck/targets/sqltarget"
)

// TestParseRefusesWhatCannotBeOpened: Parse reads the spec and its
// options and says what is wrong before anything connects (port 1
// listens on nothing), naming the field in the caller's terms (Go's by
// default, the CLI's flags with its Terms) and never a password.
func TestParseRefusesWhatCannotBeOpened(t *testing.T) {
	t.Parallel()
	zero := func(o *Options) {}
	cases := []struct {
		name  string
		spec  string
		set   func(*Options)
		goErr string // with the default terms
		cli   string // with the CLI's
	}{
		{"not a spec", "fenced", zero, `the target spec: "fenced" is not a target spec (want memory://NAME)`, `--target: "fenced" is not a target spec`},
		{"unknown memory receiver", "memory://nope", zero, "the target spec: unknown memory target", "--target: unknown memory target"},
		{"unsupported scheme", "ftp://u:s3cret@x", zero, `unsupported scheme "ftp" in "ftp://u:xxxxx@x"`, `--target: unsupported scheme "ftp"`},
		{"SQL options elsewhere", "memory://fenced", func(o *Options) { o.SQL = &sqltarget.Options{} },
			`Options.SQL need a SQL target ([sqlite postgres postgresql mysql]), not "memory"`, "--sql-* flags need a SQL target"},
		{"Redis options elsewhere", "sqlite:///x.db", func(o *Options) { o.Redis = &redistarget.Options{} },
			"Options.Redis need a Redis target", "--redis-* flags need a Redis target"},
		{"credentials elsewhere", "postgres://u:s3cret@127.0.0.1:1/db", func(o *Options) { o.HTTP.Header = []string{"X-Key: s3cret"} },
			`Options.HTTP.Header and Options.HTTP.BasicAuthFile need an http:// target, not "postgres"`, "--header and --basic-auth-file need an http:// target"},
		{"SQL timeout", "postgres://u:s3cret@127.0.0.1:1/db", func(o *Options) { o.SQL = &sqltarget.Options{} }, "Options.SQL.Timeout: must be positive", "--sql-timeout: must be positive"},
		{"Redis timeout", "redis://:s3cret@127.0.0.1:1/0", func(o *Options) { o.Redis = &redistarget.Options{} }, "Options.Redis.Timeout: must be positive", "--redis-timeout: must be positive"},
		{"request timeout", "http://127.0.0.1:1", func(o *Options) { o.HTTP.Timeout = -1 }, "Options.HTTP.Timeout: must not be negative", "--request-timeout: must not be negative"},
		{"adapter", "http://127.0.0.1:1", func(o *Options) { o.HTTP.Adapter = "/nonexistent.json" }, "Options.HTTP.Adapter: ", "--adapter: "},
		{"ready without a process", "http://127.0.0.1:1", func(o *Options) { o.Exec.Ready = "tcp" }, "Options.Exec.Ready: needs Options.Exec.Command", "--ready: needs --exec"},
		{"log patterns without a process", "http://127.0.0.1:1", func(o *Options) { o.Exec.LogFail = []string{"x"} }, "Options.Exec.LogFail: needs Options.Exec.Command", "--log-fail: needs --exec"},
		{"a bad log pattern", "http://127.0.0.1:1", func(o *Options) { o.Exec.Command, o.Exec.LogFail = "true", []string{"(x"} }, "Options.Exec.LogFail: ", "--log-fail: "},
		{"a process for another kind", "memory://fenced", func(o *Options) { o.Exec.Command = "true" }, `Options.Exec.Command: needs an http:// target, got "memory://fenced"`, "--exec: needs an http:// target"},
		{"a bad readiness check", "http://127.0.0.1:1", func(o *Options) { o.Exec.Command, o.Exec.Ready = "true", "udp" }, "Options.Exec.Ready: \"udp\" is not tcp", "--ready: \"udp\""},
		{"memory", "memory://fenced", zero, "", ""},
		// not validated: Parse opens nothing, and nothing is written there
		{"SQLite", "sqlite://" + filepath.Join(t.TempDir(), "x.db"), zero, "", ""},
		{"PostgreSQL", "postgres://u:s3cret@127.0.0.1:1/db", zero, "", ""},
		{"Redis", "redis://127.0.0.1:1/0", zero, "", ""},
		{"S3 options elsewhere", "redis://127.0.0.1:1/0", func(o *Options) { o.S3 = &s3target.Options{} },
			"Options.S3 need an S3 target", "--s3-mode need an S3 target"},
		{"S3 mode", "s3://embedded/fc", func(o *Options) { o.S3 = &s3target.Options{Mode: "careful", Timeout: 1} }, `Options.S3: unknown s3-mode "careful"`, `--s3-mode: unknown s3-mode "careful"`},
		{"S3 spec", "s3://u:s3cret@127.0.0.1:9000/b", zero, "the target spec: s3://u:xxxxx@127.0.0.1:9000/b: credentials do not go in the spec", "--target: s3://u:xxxxx@"},
		{"S3", "s3://127.0.0.1:1/bkt", zero, "", ""},
		{"S3 embedded", "s3://embedded/fc", zero, "", ""},
		{"HTTP with a process", "http://127.0.0.1:1", func(o *Options) { o.Exec.Command = "true" }, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for _, terms := range []Terms{nil, flags} {
				o := DefaultOptions()
				tc.set(&o)
				o.Terms = terms
				s, err := Parse(tc.spec, o)
				want := tc.goErr
				if terms != nil {
					want = tc.cli
				}
				if want == "" {
					require.NoError(t, err)
					assert.Equal(t, tc.spec, s.spec)
					continue
				}
				require.ErrorContains(t, err, want)
				var fe *FieldError
				require.ErrorAs(t, err, &fe, "a field's error")
				assert.NotContains(t, err.Error(), "s3cret")
			}
		})
	}
}

// TestOpenMemory: a memory receiver is deterministic, named by its spec,
// and stores every token.
func TestOpenMemory(t *testing.T) {
	t.Parallel()
	tgt, err := Open(context.Background(), "memory://fenced", DefaultOptions())
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, tgt.Close()) })
	assert.True(t, tgt.Deterministic)
	assert.Equal(t, "memory://fenced", tgt.Name)
	assert.Equal(t, ^uint64(0), tgt.MaxToken)
	out, err := tgt.Target.Write(context.Background(), "r", 1, "v")
	require.NoError(t, err)
	assert.Equal(t, histories.Accepted, out)
}

// TestOpenSQLiteWithItsDomain: a SQL target is named with how it writes,
// keeps to the smaller of the declared and its own token domain, and is
// on the real clock.
func TestOpenSQLiteWithItsDomain(t *testing.T) {
	t.Parallel()
	o := DefaultOptions()
	o.MaxToken = 1 << 40
	tgt, err := Open(context.Background(), "sqlite://"+filepath.Join(schema.TempDir(t), "r.db"), o)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, tgt.Close()) })
	assert.False(t, tgt.Deterministic)
	assert.True(t, strings.HasSuffix(tgt.Name, " (atomic)"), tgt.Name)
	assert.Equal(t, uint64(1<<40), tgt.MaxToken)
	o.MaxToken = 0
	tgt2, err := Open(context.Background(), "sqlite://"+filepath.Join(schema.TempDir(t), "r2.db"), o)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, tgt2.Close()) })
	assert.Equal(t, targets.MaxToken63, tgt2.MaxToken, "a BIGINT column's")
}

// TestOpenPutsTheFaultsProxiesInFront: an HTTP receiver opened with the
// HTTP proxy's and the TCP proxy's faults is reached through both; the
// faults then know they can act (nemesis.Fault.Available at the zero
// Site), the name stays the receiver's, and Close takes the proxies down.
func TestOpenPutsTheFaultsProxiesInFront(t *testing.T) {
	t.Parallel()
	h, err := receiver.NewHandler(receiver.NewMemory(), receiver.DefaultOptions())
	require.NoError(t, err)
	var hosts []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hosts = append(hosts, r.Host)
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	s, err := Parse(srv.URL, DefaultOptions())
	require.NoError(t, err)
	assert.Equal(t, nemesis.Site{HTTPProxy: true, TCPProxy: true}, s.Site())
	faults, err := s.ParseFaults("pause,latency,net-latency")
	require.NoError(t, err)
	tgt, err := s.Open(context.Background(), faults)
	require.NoError(t, err)
	assert.Equal(t, srv.URL, tgt.Name, "the receiver's name, not the proxies'")
	for _, f := range faults {
		assert.NoError(t, f.Available(nemesis.Site{}), "%s is in a started proxy", f.Name())
	}
	out, err := tgt.Target.Write(context.Background(), "r", 7, "v")
	require.NoError(t, err)
	assert.Equal(t, histories.Accepted, out)
	require.NotEmpty(t, hosts)
	assert.NotEqual(t, strings.TrimPrefix(srv.URL, "http://"), hosts[0], "the request came through the proxies")
	require.NoError(t, tgt.Close())
	assert.Error(t, faults[1].Available(nemesis.Site{}), "closed, the HTTP proxy holds the fault no more")
	assert.Error(t, faults[2].Available(nemesis.Site{}), "closed, the TCP proxy holds the fault no more")
}

// TestOpenEmbeddedS3: s3://embedded/NAME starts a store in the process,
// behind the TCP fault proxy when a fault acts there; the target keeps
// the spec's name, stores every token, and Close stops the store.
func TestOpenEmbeddedS3(t *testing.T) {
	t.Parallel()
	for _, list := range []string{"pause", "pause,net-latency"} {
		t.Run(list, func(t *testing.T) {
			t.Parallel()
			o := DefaultOptions()
			o.S3 = &s3target.Options{Mode: s3target.ModeEpochKeys, Timeout: time.Second}
			s, err := Parse("s3://embedded/fc", o)
			require.NoError(t, err)
			assert.Equal(t, nemesis.Site{TCPProxy: true}, s.Site())
			faults, err := s.ParseFaults(list)
			require.NoError(t, err)
			ctx := context.Background()
			tgt, err := s.Open(ctx, faults)
			require.NoError(t, err)
			assert.Equal(t, "s3://embedded/fc (epoch-keys)", tgt.Name)
			assert.Equal(t, uint64(1<<64-1), tgt.MaxToken)
			require.NoError(t, tgt.Target.(targets.Setupper).Setup(ctx))
			out, err := tgt.Target.Write(ctx, "r", 1<<64-1, "v")
			require.NoError(t, err)
			assert.Equal(t, histories.Accepted, out)
			require.NoError(t, tgt.Target.(targets.Teardowner).Teardown(ctx))
			require.NoError(t, tgt.Close())
			_, err = tgt.Target.Read(ctx, "r")
			assert.Error(t, err, "the store stopped with the target")
		})
	}
}

// TestOpenWithAProcess: Exec makes the target a receiver process, which
// the process faults act on; without Exec they are refused naming it.
func TestOpenWithAProcess(t *testing.T) {
	t.Parallel()
	o := DefaultOptions()
	o.Terms = flags
	plain, err := Parse("http://127.0.0.1:1", o)
	require.NoError(t, err)
	assert.Nil(t, plain.Process())
	_, err = plain.ParseFaults("kill")
	assert.EqualError(t, err, "--nemesis: kill acts on the receiver process and needs --exec")
	_, err = plain.ParseFaults("bogus")
	assert.ErrorContains(t, err, `--nemesis: unknown fault "bogus"`)

	o.Exec.Command, o.Exec.Ready = "exec sleep 30", "cmd:true"
	s, err := Parse("http://127.0.0.1:1", o)
	require.NoError(t, err)
	require.NotNil(t, s.Process())
	faults, err := s.ParseFaults("kill,pause-receiver")
	require.NoError(t, err)
	tgt, err := s.Open(context.Background(), faults)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, tgt.Close()) })
	_, ok := tgt.Target.(*process.Target)
	assert.True(t, ok, "a receiver process the run sets up and tears down")
}
