package s3target

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/targets"
)

func readAll(t *testing.T, out *s3.GetObjectOutput) string {
	t.Helper()
	b, err := io.ReadAll(out.Body)
	require.NoError(t, err)
	return string(b)
}

// refusingStore is an embedded store whose conditional PUTs are answered
// with status and code, as long as refuse says so, before they reach
// gofakes3: what S3 answers to two conditional writes at once (409
// ConditionalRequestConflict), or a store that always finds the
// precondition false (412).
func refusingStore(t *testing.T, status int, code string, refuse func(n int64) bool) (store, *atomic.Int64) {
	t.Helper()
	fake := gofakes3.New(s3mem.New(), gofakes3.WithLogger(gofakes3.DiscardLog())).Server()
	var n atomic.Int64
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conditional := r.Method == http.MethodPut && (r.Header.Get("If-Match") != "" || r.Header.Get("If-None-Match") != "")
		if conditional && refuse(n.Add(1)) {
			w.WriteHeader(status)
			_, _ = io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>`+code+`</Code><Message>refused by the test</Message></Error>`)
			return
		}
		fake.ServeHTTP(w, r)
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return store{"refusing", ln.Addr().String(), Credentials{"refusing-store-key", "refusing-store-secret"}}, &n
}

// TestConflictIsARetry: a 409 ConditionalRequestConflict applied
// nothing and is tried again, never recorded as a rejection: the write
// is accepted on the next attempt.
func TestConflictIsARetry(t *testing.T) {
	t.Parallel()
	for _, m := range []Mode{ModeCAS, ModeEpochKeys, ModeETagOnly} {
		t.Run(string(m), func(t *testing.T) {
			t.Parallel()
			s, n := refusingStore(t, http.StatusConflict, "ConditionalRequestConflict", func(n int64) bool { return n <= 2 })
			tgt := open(t, s, s.options(m))
			play(t, tgt, "r0", []step{{42, "a", histories.Accepted}})
			assert.Equal(t, int64(3), n.Load(), "two conflicts, then the PUT that was applied")
			r, err := tgt.Read(context.Background(), "r0")
			require.NoError(t, err)
			assert.Equal(t, "a", r.Value)
		})
	}
}

// TestAlwaysRefusedIsNotApplied: a write whose every conditional PUT was
// refused (412) applied nothing, and says so (recorded as fail, not as a
// rejection or an unknown outcome).
func TestAlwaysRefusedIsNotApplied(t *testing.T) {
	t.Parallel()
	s, _ := refusingStore(t, http.StatusPreconditionFailed, "PreconditionFailed", func(int64) bool { return true })
	tgt := open(t, s, s.options(ModeCAS))
	_, err := tgt.Write(context.Background(), "r0", 1, "v")
	require.ErrorIs(t, err, targets.ErrDefinitelyNotApplied)
	assert.ErrorContains(t, err, "object key "+tgt.Prefix()+"r0 changed between each read and its PUT, 32 times")
}

// TestUnreachableIsNotApplied: a write to a store that refuses the
// connection was never sent.
func TestUnreachableIsNotApplied(t *testing.T) {
	t.Parallel()
	s := store{"embedded", embedded.Addr(), embedded.Credentials()}
	for _, m := range Modes() {
		t.Run(string(m), func(t *testing.T) {
			t.Parallel()
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			require.NoError(t, err)
			dead := ln.Addr().String()
			require.NoError(t, ln.Close())
			tgt := open(t, s, s.options(m))
			own := tgt.client
			tgt.client = s3.New(own.Options(), func(o *s3.Options) { o.BaseEndpoint = &[]string{"http://" + dead}[0] })
			_, err = tgt.Write(context.Background(), "r0", 1, "v")
			tgt.client = own // for the tear-down
			assert.ErrorIs(t, err, targets.ErrDefinitelyNotApplied)
		})
	}
}

// TestOpenErrors: what Open refuses names the target without its
// credentials.
func TestOpenErrors(t *testing.T) {
	t.Parallel()
	good := store{"embedded", embedded.Addr(), embedded.Credentials()}
	secret := Credentials{"AKIAEXAMPLE", "s3cretkey"}
	cases := []struct {
		name string
		spec string
		o    func(*Options)
		err  string
	}{
		{"unknown mode", good.spec(""), func(o *Options) { o.Mode = "careful" }, `unknown s3-mode "careful"`},
		{"zero timeout", good.spec(""), func(o *Options) { o.Timeout = 0 }, "Timeout must be positive"},
		{"not an S3 spec", "redis://127.0.0.1:6379/0", nil, "not an S3 target"},
		{"credentials in the spec", "s3://AKIA:s3cretkey@127.0.0.1:9000/b", nil, "credentials do not go in the spec"},
		{"bad bucket", good.spec("No_Such"), nil, `"No_Such" is not a bucket name`},
		{"a key in the path", good.spec("b/k"), nil, `"b/k" is not a bucket name`},
		{"unknown parameter", good.spec("bkt") + "?secure=1", nil, `unknown or repeated parameter "secure"`},
		{"no port", "s3://127.0.0.1/bkt", nil, "names no host:port"},
		{"unreachable", "s3://127.0.0.1:1/bkt", nil, "open s3://127.0.0.1:1/bkt: head bucket bkt:"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := DefaultOptions()
			o.Credentials = &secret
			if tc.o != nil {
				tc.o(&o)
			}
			_, err := Open(context.Background(), tc.spec, o)
			require.ErrorContains(t, err, tc.err)
			assert.NotContains(t, err.Error(), "s3cretkey")
		})
	}
}

// TestCredentialsFromTheEnvironment: without Options.Credentials the
// target signs with the environment's key, else the shared credentials
// file's, and says what to set when there is neither. Not parallel: it
// sets the process's environment.
func TestCredentialsFromTheEnvironment(t *testing.T) {
	spec := "s3://" + embedded.Addr() + "/"
	dir := t.TempDir()
	file := filepath.Join(dir, "credentials")
	require.NoError(t, os.WriteFile(file, []byte("[default]\naws_access_key_id = fromfile\naws_secret_access_key = s3cretkey\n"), 0o600))
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "config"))
	t.Setenv("AWS_PROFILE", "")
	cases := []struct {
		name      string
		env       map[string]string
		err       string
		accessKey string
	}{
		{"environment", map[string]string{"AWS_ACCESS_KEY_ID": "fromenv", "AWS_SECRET_ACCESS_KEY": "s3cretkey", "AWS_SHARED_CREDENTIALS_FILE": filepath.Join(dir, "none")}, "", "fromenv"},
		{"shared file", map[string]string{"AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": "", "AWS_SHARED_CREDENTIALS_FILE": file}, "", "fromfile"},
		{"none", map[string]string{"AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": "", "AWS_SHARED_CREDENTIALS_FILE": filepath.Join(dir, "none")}, "no credentials: set AWS_ACCESS_KEY_ID", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			ctx := context.Background()
			tgt, err := Open(ctx, spec, DefaultOptions())
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			defer tgt.Close()
			c, err := tgt.client.Options().Credentials.Retrieve(ctx)
			require.NoError(t, err)
			assert.Equal(t, tc.accessKey, c.AccessKeyID)
			require.NoError(t, tgt.Setup(ctx))
			play(t, tgt, "r0", []step{{1, "v", histories.Accepted}})
			require.NoError(t, tgt.Teardown(ctx))
		})
	}
}

// TestSecretNeverInAnError: an error that quotes the secret (as a
// misbehaving store or proxy might) is scrubbed of it.
func TestSecretNeverInAnError(t *testing.T) {
	t.Parallel()
	s, _ := refusingStore(t, http.StatusBadRequest, "InvalidRequest s3cretkey", func(int64) bool { return true })
	o := s.options(ModeCAS)
	o.Credentials = &Credentials{"AKIAEXAMPLE", "s3cretkey"}
	tgt := open(t, s, o)
	_, err := tgt.Write(context.Background(), "r0", 1, "v")
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "s3cretkey")
	assert.Contains(t, err.Error(), "xxxxx")
}
