// Package natstarget tests receivers that keep the fenced value in a
// NATS JetStream key-value bucket, through nats.go's jetstream package,
// on a real server and the real clock.
//
//	worker ──Write(resource, token, value)──> NATS JetStream KV
//	                                          │
//	          atomic: Get (value, token, revision); compare in Go;
//	                  Update(key, value, revision) ─ conflict: again
//	                  (Create for the first write)
//	          check-then-set: Get; compare in Go; [window]; Put
//
// Each run gets a bucket of its own, fencecheck_target_<12 hex>, which
// Setup creates and Teardown deletes; nothing else on the server is
// touched, as it may be shared. nats://embedded runs a private server
// instead (Private), as a child process that the receiver faults can
// crash and freeze.
//
// The client never resends a write on its own: it keeps no
// reconnection buffer (internal/natsserver.Connect), so a write whose
// connection is down fails at once rather than being sent later.
package natstarget

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/fencecheck/fencecheck/internal/natsserver"
	"github.com/fencecheck/fencecheck/internal/redact"
	"github.com/fencecheck/fencecheck/internal/unique"
	"github.com/fencecheck/fencecheck/targets"
)

// BucketPrefix starts the name of every bucket a target creates.
const BucketPrefix = "fencecheck_target_"

// EmbeddedHost is the host of the spec that names a private server:
// nats://embedded.
const EmbeddedHost = "embedded"

// Target is a receiver backed by a NATS JetStream KV bucket.
type Target struct {
	url         string // what the client connects to
	name        string // the redacted spec
	secrets     []string
	mode        Mode
	acceptEqual bool
	timeout     time.Duration
	bucket      string

	nc     *nats.Conn
	js     jetstream.JetStream
	kv     jetstream.KeyValue
	window func(ctx context.Context, resource string, token uint64)
}

// Schemes lists the target spec schemes Open accepts.
func Schemes() []string { return []string{"nats"} }

// IsSpec reports whether spec names a NATS target.
func IsSpec(spec string) bool {
	scheme, _, ok := strings.Cut(spec, "://")
	return ok && scheme == "nats"
}

// IsEmbedded reports whether spec names the private server
// (nats://embedded, with its parameters).
func IsEmbedded(spec string) bool {
	u, err := url.Parse(spec)
	return err == nil && IsSpec(spec) && u.Host == EmbeddedHost
}

// newTarget checks spec and o and names the bucket; it connects to
// nothing.
func newTarget(spec string, o Options) (*Target, error) {
	name := redact.Spec(spec)
	if !IsSpec(spec) {
		return nil, fmt.Errorf("open %s: not a NATS target (want nats://HOST:PORT or nats://%s)", name, EmbeddedHost)
	}
	if err := o.validate(); err != nil {
		return nil, fmt.Errorf("open %s: %w", name, err)
	}
	return &Target{url: spec, name: name, secrets: redact.Secrets(spec, nil), mode: o.Mode, acceptEqual: o.AcceptEqual,
		timeout: o.Timeout, bucket: BucketPrefix + unique.Hex(6)}, nil
}

// Open connects to the server spec names and makes sure JetStream
// answers, so that a server without JetStream is reported before the
// run. Spec: nats://[user:password@]HOST:PORT. Errors name the spec with
// its password redacted.
func Open(ctx context.Context, spec string, o Options) (*Target, error) {
	t, err := newTarget(spec, o)
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(spec)
	if err != nil {
		return nil, fmt.Errorf("open %s: not a URL", t.name)
	}
	switch {
	case u.Host == EmbeddedHost:
		return nil, fmt.Errorf("open %s: the private server is opened with OpenPrivate", t.name)
	case u.RawQuery != "" || (u.Path != "" && u.Path != "/"):
		return nil, fmt.Errorf("open %s: want nats://[user:password@]HOST:PORT, with no path or parameters", t.name)
	}
	if err := t.connect(ctx); err != nil {
		return nil, err
	}
	return t, nil
}

// connect connects the client and asks JetStream for the account's
// information.
func (t *Target) connect(ctx context.Context) error {
	nc, err := natsserver.Connect(t.url, "fencecheck target "+t.bucket, t.timeout)
	if err != nil {
		return t.wrap("open", err)
	}
	js, err := jetstream.New(nc)
	if err == nil {
		ctx, cancel := context.WithTimeout(ctx, t.timeout)
		_, err = js.AccountInfo(ctx)
		cancel()
	}
	if err != nil {
		nc.Close()
		return t.wrap("open (is JetStream enabled?)", err)
	}
	t.nc, t.js = nc, js
	return nil
}

// wrap names what failed and the target, without the password.
func (t *Target) wrap(what string, err error) error {
	return fmt.Errorf("%s %s: %w", what, t.name, redact.Error(err, t.secrets))
}

// Name returns the target spec with its password redacted.
func (t *Target) Name() string { return t.name }

// Mode returns the mode.
func (t *Target) Mode() Mode { return t.mode }

// Bucket is the run's bucket.
func (t *Target) Bucket() string { return t.bucket }

// MaxToken implements targets.TokenDomain: the tokens are stored in
// decimal and compared in Go as uint64, so every uint64 is stored.
func (t *Target) MaxToken() uint64 { return ^uint64(0) }

// SetWindow sets what runs between the comparison and the write; the
// harness uses it to hold a write there. In check-then-set a write held
// there lands on top of a newer one; in atomic (on its first attempt
// only) its Update is refused, for the revision moved on, and the write
// is decided again.
func (t *Target) SetWindow(window func(ctx context.Context, resource string, token uint64)) {
	t.window = window
}

// Setup implements targets.Setupper: it creates the run's bucket, which
// keeps one revision per key, on disk, unreplicated. The bucket is new,
// so the run starts with nothing stored.
func (t *Target) Setup(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	kv, err := t.js.CreateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:      t.bucket,
		Description: "fencecheck run: deleted at its end",
		History:     1,
		Storage:     jetstream.FileStorage,
		Replicas:    1,
	})
	if err != nil {
		return t.wrap("create the bucket "+t.bucket+" on", err)
	}
	t.kv = kv
	return nil
}

// Close closes the connection. It deletes no bucket: Teardown does.
func (t *Target) Close() error {
	if t.nc != nil {
		t.nc.Close()
	}
	return nil
}

// errNoBucket is the error of a read or write before Setup.
var errNoBucket = errors.New("no bucket: Setup was not called")

// The interfaces the harness looks for.
var (
	_ targets.Target      = (*Target)(nil)
	_ targets.Setupper    = (*Target)(nil)
	_ targets.Teardowner  = (*Target)(nil)
	_ targets.TokenDomain = (*Target)(nil)
	_ targets.Windowed    = (*Target)(nil)
)
