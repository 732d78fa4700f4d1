package s3target

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/internal/testsupport/minio"
)

// embedded is the package's embedded store, shared by its tests, so
// that TestMain can check what they left on it.
var embedded *Server

// TestMain starts the embedded store and, after the tests, checks that
// no bucket is left on it nor on a MinIO the tests started: every test
// removes what it created, through Teardown or by hand.
func TestMain(m *testing.M) {
	var err error
	if embedded, err = StartEmbedded(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	code := m.Run()
	stores := []store{{"embedded", embedded.Addr(), embedded.Credentials()}}
	if s, skip := minio.Store(); skip == "" && os.Getenv(minio.EnvEndpoint) == "" {
		stores = append(stores, store{"minio", s.Addr, Credentials{s.AccessKeyID, s.SecretAccessKey}})
	}
	for _, s := range stores {
		left, err := bucketsOn(s)
		if err != nil || len(left) > 0 {
			fmt.Fprintf(os.Stderr, "FAIL: the tests left buckets behind on the %s store: %v (%v)\n", s.name, left, err)
			code = 1
		}
	}
	_ = embedded.Close()
	minio.Stop()
	os.Exit(code)
}

// store is an S3 store the tests write to.
type store struct {
	name  string
	addr  string
	creds Credentials
}

// stores are the embedded store, and a real one when there is one (see
// internal/testsupport/minio); fn runs as a subtest on each, and skips
// on a missing one, saying why.
func stores(t *testing.T, fn func(t *testing.T, s store)) {
	t.Helper()
	t.Run("embedded", func(t *testing.T) {
		t.Parallel()
		fn(t, store{"embedded", embedded.Addr(), embedded.Credentials()})
	})
	t.Run("minio", func(t *testing.T) {
		t.Parallel()
		m, skip := minio.Store()
		if skip != "" {
			t.Skip(skip)
		}
		fn(t, store{"minio", m.Addr, Credentials{m.AccessKeyID, m.SecretAccessKey}})
	})
}

// modeOptions are the defaults with a mode and the store's credentials.
func (s store) options(m Mode) Options {
	o := DefaultOptions()
	o.Mode = m
	c := s.creds
	o.Credentials = &c
	return o
}

// spec is the store's spec with bucket ("" for a bucket of the run's
// own).
func (s store) spec(bucket string) string { return "s3://" + s.addr + "/" + bucket }

// client is a client of the test's own on the store.
func (s store) client(t testing.TB) *s3.Client {
	t.Helper()
	c, err := newClient(s)
	require.NoError(t, err)
	return c
}

func newClient(s store) (*s3.Client, error) {
	tgt, err := Open(context.Background(), s.spec("fencecheck-probe"), s.options(ModeCAS))
	if err != nil {
		return nil, err
	}
	return tgt.client, nil
}

// bucketsOn lists the store's buckets.
func bucketsOn(s store) ([]string, error) {
	c, err := newClient(s)
	if err != nil {
		return nil, err
	}
	out, err := c.ListBuckets(context.Background(), &s3.ListBucketsInput{})
	if err != nil {
		return nil, err
	}
	var names []string
	for _, b := range out.Buckets {
		names = append(names, aws.ToString(b.Name))
	}
	return names, nil
}

// open opens a target on s in a bucket of its own and, when the test
// ends, tears it down, checks that neither its bucket nor an object of
// its prefix is left, and closes it.
func open(t *testing.T, s store, o Options) *Target {
	t.Helper()
	ctx := context.Background()
	tgt, err := Open(ctx, s.spec(""), o)
	require.NoError(t, err)
	require.NoError(t, tgt.Setup(ctx))
	t.Cleanup(func() {
		assert.NoError(t, tgt.Teardown(ctx))
		_, err := tgt.client.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(tgt.Bucket())})
		assert.True(t, isNotFound(err), "Teardown left the bucket %s behind: %v", tgt.Bucket(), err)
		assert.NoError(t, tgt.Close())
	})
	return tgt
}

// keys lists the keys under the target's prefix.
func keys(t testing.TB, c *s3.Client, bucket, prefix string) []string {
	t.Helper()
	var ks []string
	for p := s3.NewListObjectsV2Paginator(c, &s3.ListObjectsV2Input{Bucket: &bucket, Prefix: &prefix}); p.HasMorePages(); {
		page, err := p.NextPage(context.Background())
		require.NoError(t, err)
		for _, o := range page.Contents {
			ks = append(ks, aws.ToString(o.Key))
		}
	}
	return ks
}
