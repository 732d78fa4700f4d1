// Package s3target tests receivers that keep the fenced value in an
// S3-compatible object store, guarded by S3's conditional writes
// (If-Match and If-None-Match on PutObject). It speaks to the store with
// the AWS SDK for Go v2, path-style, on the real clock: a store the user
// runs (s3://HOST:PORT/BUCKET: MinIO, Ceph, AWS itself), or an embedded
// one started in the process (s3://embedded/BUCKET, see embedded.go).
//
//	worker ──Write(resource, token, value)──> object store
//	                                          │
//	  cas:           GET object (ETag); refuse a lower token; [window];
//	                 PUT If-Match: ETag (first: If-None-Match: *); 412: again
//	  epoch-keys:    LIST resource/; refuse a lower token; [window];
//	                 PUT resource/<20-digit token> If-None-Match: *
//	  etag-only:     [window]; HEAD object (ETag); PUT If-Match: ETag
//	  unconditional: [window]; PUT
//
// Every object of a run lies under a prefix of its own,
// fencecheck-<12 hex>/, in the bucket the spec names, or in a bucket of
// the run's own (fencecheck-<12 hex>) when it names none. Teardown
// removes the run's objects, and the bucket when the run created it;
// nothing else in the store is touched, as it may be shared.
//
// The client never retries a request on its own (the SDK would, by
// default): a conditional PUT resent after its first send was applied
// would find its own object there and answer 412, and the run would
// record as rejected a write that was accepted. The credentials come
// from Options.Credentials or the SDK's chain (the environment, the
// shared credentials file) and never reach an error or a name.
package s3target

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/feature/ec2/imds"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/fencecheck/fencecheck/internal/redact"
	"github.com/fencecheck/fencecheck/internal/unique"
	"github.com/fencecheck/fencecheck/targets"
)

// defaultRegion is what requests are signed for when neither the spec
// nor Options names a region: what MinIO and the embedded store accept.
const defaultRegion = "us-east-1"

// Target is a receiver backed by an S3-compatible object store.
type Target struct {
	client  *s3.Client
	http    *http.Client
	name    string // the spec as it may be printed
	secrets []string
	mode    Mode
	// acceptEqual: a repeat of the stored token is accepted.
	acceptEqual bool
	bucket      string
	region      string
	// ownBucket: the bucket did not exist before the run (Open found
	// none); Setup creates it and Teardown removes it.
	ownBucket bool
	created   bool // Setup created the bucket
	prefix    string
	window    func(ctx context.Context, resource string, token uint64)
	closers   []func() error

	// highest is, per resource, the highest epoch key known to exist
	// (epoch-keys): a listing starts after it, for keys are never
	// removed during a run.
	mu      sync.Mutex
	highest map[string]uint64
	log     putLog
}

// Open connects to the store spec names and checks that the bucket can
// be reached, so that an unreachable store or refused credentials are
// reported before the run. Specs: s3://HOST:PORT[/BUCKET][?region=R&tls=true]
// for a store the user runs, s3://embedded[/BUCKET] for a store started
// in the process (closed by Close), in a bucket named BUCKET-<12 hex>
// (any bucket is run-unique on it). Errors name the spec without
// credentials.
func Open(ctx context.Context, spec string, o Options) (*Target, error) {
	name := redact.Spec(spec)
	l, err := parseSpec(spec)
	if err != nil {
		return nil, fmt.Errorf("open %w", err)
	}
	if err := o.validate(); err != nil {
		return nil, fmt.Errorf("open %s: %w", name, err)
	}
	var closers []func() error
	if l.embedded {
		srv, err := StartEmbedded()
		if err != nil {
			return nil, fmt.Errorf("open %s: %w", name, err)
		}
		closers = append(closers, srv.Close)
		l.host, l.bucket = srv.Addr(), l.runBucket()
		c := srv.Credentials()
		o.Credentials = &c
	}
	t, err := connect(ctx, name, l, o)
	if err != nil {
		for _, c := range closers {
			_ = c()
		}
		return nil, err
	}
	t.closers = append(t.closers, closers...)
	return t, nil
}

// connect connects to the store at l.
func connect(ctx context.Context, name string, l location, o Options) (*Target, error) {
	t := &Target{name: name, mode: o.Mode, acceptEqual: o.AcceptEqual, bucket: l.bucket,
		prefix: "fencecheck-" + unique.Hex(6) + "/", highest: make(map[string]uint64)}
	if t.bucket == "" {
		t.bucket = "fencecheck-" + unique.Hex(6)
	}
	region := o.Region
	if region == "" {
		region = l.region
	}
	if region == "" {
		region = defaultRegion
	}
	t.region = region
	t.http = &http.Client{Timeout: o.Timeout, Transport: &http.Transport{
		DialContext:         (&net.Dialer{Timeout: o.Timeout}).DialContext,
		MaxIdleConnsPerHost: poolSize(o.Workers),
		Proxy:               http.ProxyFromEnvironment,
	}}
	creds, err := t.credentials(ctx, region, o.Credentials)
	if err != nil {
		return nil, t.wrap("open", err)
	}
	t.client = s3.New(s3.Options{
		Region:                     region,
		Credentials:                creds,
		BaseEndpoint:               aws.String(l.endpoint()),
		UsePathStyle:               true,
		Retryer:                    aws.NopRetryer{}, // see the package documentation
		HTTPClient:                 t.http,
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
	})
	if err := t.findBucket(ctx); err != nil {
		t.http.CloseIdleConnections()
		return nil, t.wrap("open", err)
	}
	return t, nil
}

// credentials returns the provider to sign with, after retrieving its
// credentials once: missing ones are a configuration error, found now.
// What it retrieved joins the secrets every error is scrubbed of.
func (t *Target) credentials(ctx context.Context, region string, static *Credentials) (aws.CredentialsProvider, error) {
	var p aws.CredentialsProvider
	if static != nil {
		p = credentials.NewStaticCredentialsProvider(static.AccessKeyID, static.SecretAccessKey, "")
	} else {
		cfg, err := config.LoadDefaultConfig(ctx, config.WithRegion(region),
			config.WithEC2IMDSClientEnableState(imds.ClientDisabled))
		if err != nil {
			return nil, fmt.Errorf("load the AWS configuration: %w", err)
		}
		p = cfg.Credentials
	}
	if p == nil {
		return nil, errNoCredentials
	}
	c, err := p.Retrieve(ctx)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errNoCredentials, err)
	}
	for _, s := range []string{c.SecretAccessKey, c.SessionToken} {
		if s != "" {
			t.secrets = append(t.secrets, s)
		}
	}
	return aws.NewCredentialsCache(p), nil
}

// errNoCredentials is why a store cannot be signed for.
var errNoCredentials = errors.New("no credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE with a shared credentials file")

// poolSize is the number of connections for a run with workers workers:
// one each, as many again for writes still on their way after their
// worker stopped waiting, and one for the harness's own reads.
func poolSize(workers int) int { return 2*max(workers, 1) + 1 }

// wrap names what failed and the target, without credentials.
func (t *Target) wrap(what string, err error) error {
	return fmt.Errorf("%s %s: %w", what, t.name, redact.Error(err, t.secrets))
}

// Name returns the target spec as it may be printed.
func (t *Target) Name() string { return t.name }

// Rename replaces the name errors and the run store use, for a target
// reached through a fault proxy or on an embedded store started by the
// caller.
func (t *Target) Rename(name string) { t.name = name }

// AddCloser makes Close call c too, after the target's own: for an
// embedded store the caller started.
func (t *Target) AddCloser(c func() error) { t.closers = append(t.closers, c) }

// Mode returns the built-in mode.
func (t *Target) Mode() Mode { return t.mode }

// Bucket is the bucket the run writes in.
func (t *Target) Bucket() string { return t.bucket }

// Prefix is what every object key of the run starts with.
func (t *Target) Prefix() string { return t.prefix }

// Client is the S3 client the target writes with, for tests that look at
// the store.
func (t *Target) Client() *s3.Client { return t.client }

// key is the object key of a resource (cas, etag-only, unconditional),
// or the prefix of its epoch keys (epoch-keys, with a "/" after it).
func (t *Target) key(resource string) string { return t.prefix + resource }

// MaxToken implements targets.TokenDomain. Every mode writes the token
// in 20 decimal digits, zero-padded, in the object and in an epoch key,
// and compares tokens as uint64 in Go, or as those keys, whose
// lexicographic order is the numeric one: every uint64 is stored.
func (t *Target) MaxToken() uint64 { return ^uint64(0) }

// SetWindow sets what runs between the token check and the PUT (cas,
// epoch-keys) or before the ETag read (etag-only, unconditional), on a
// write's first attempt; the harness uses it to hold a write there. In
// cas a write held there finds the ETag changed (412) and is decided
// again; in epoch-keys it creates a key below the current one, which
// reads never return; in etag-only it reads the newer ETag and
// overwrites the newer value.
func (t *Target) SetWindow(window func(ctx context.Context, resource string, token uint64)) {
	t.window = window
}

// openWindow runs the harness's window, when it set one.
func (t *Target) openWindow(ctx context.Context, resource string, token uint64) {
	if t.window != nil {
		t.window(ctx, resource, token)
	}
}

// Close closes the connection pool, and the embedded store Open
// started. It removes no object: Teardown does.
func (t *Target) Close() error {
	t.http.CloseIdleConnections()
	t.closeLog()
	var errs []error
	for _, c := range t.closers {
		errs = append(errs, c())
	}
	return errors.Join(errs...)
}

// The interfaces the harness looks for.
var (
	_ targets.Target      = (*Target)(nil)
	_ targets.Setupper    = (*Target)(nil)
	_ targets.Teardowner  = (*Target)(nil)
	_ targets.TokenDomain = (*Target)(nil)
	_ targets.Windowed    = (*Target)(nil)
	_ targets.RunDirUser  = (*Target)(nil)
)
