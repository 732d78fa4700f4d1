// Package redistarget tests receivers that keep the fenced value in
// Redis, where a fencing check is most often a Lua script. It speaks to
// a real server through go-redis, on the real clock.
//
//	worker ──Write(resource, token, value)──> Redis
//	                                          │
//	          atomic: one Lua script compares and sets (EVALSHA)
//	          check-then-set: HGET token; compare in Go; [window]; HSET
//	          watch: WATCH; HGET token; compare; [window]; MULTI HSET EXEC
//	          your own: a Lua script with KEYS[1] the key, ARGV token, value
//
// Every key of a run starts with a prefix of its own,
// fencecheck:target:<12 hex>:, and Teardown removes them all (SCAN MATCH
// and UNLINK). Nothing else on the server is touched, as it may be
// shared: no database, key or script cache of anyone else's is emptied;
// the scripts go to the server's script cache by EVALSHA, falling back to
// EVAL, as any client's do.
//
// The client never retries a command on its own (go-redis would, by
// default, on a broken connection): a script resent after its first send
// was applied would find its own token stored and reject it, and the run
// would record as rejected a write that was accepted.
package redistarget

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/redis/go-redis/v9"

	"github.com/fencecheck/fencecheck/internal/redact"
	"github.com/fencecheck/fencecheck/internal/unique"
	"github.com/fencecheck/fencecheck/targets"
)

// Target is a receiver backed by a Redis server.
type Target struct {
	client  *redis.Client
	name    string // the redacted spec
	secrets []string
	mode    Mode   // "" for the user's own script
	policy  string // ARGV[3] of the scripts
	// acceptEqual: a repeat of the stored token is accepted.
	acceptEqual bool
	prefix      string

	write  *redis.Script // atomic or the user's; nil in check-then-set and watch
	read   *redis.Script // the user's read script, or nil for the layout's
	window func(ctx context.Context, resource string, token uint64)
}

// Schemes lists the target spec schemes Open accepts: rediss is Redis
// over TLS.
func Schemes() []string { return []string{"redis", "rediss"} }

// IsSpec reports whether spec names a Redis target.
func IsSpec(spec string) bool {
	scheme, _, ok := strings.Cut(spec, "://")
	return ok && (scheme == "redis" || scheme == "rediss")
}

// quietLogs drops go-redis's own log, which goes to stderr for the whole
// process: its lines are failed dials and the like, each of which also
// reaches the caller as an error.
var quietLogs sync.Once

type noLog struct{}

func (noLog) Printf(context.Context, string, ...any) {}

// Open connects to the server spec names, makes sure it answers and
// loads the scripts, so that a script that does not compile is reported
// before the run. Specs: redis://[user:password@]host:port/db and
// rediss://… (TLS), with go-redis's query parameters. Errors name the
// spec with its password redacted.
func Open(ctx context.Context, spec string, o Options) (*Target, error) {
	quietLogs.Do(func() { redis.SetLogger(noLog{}) })
	name := redact.Spec(spec)
	t := &Target{name: name, secrets: redact.Secrets(spec, nil), mode: o.Mode, policy: o.policy(), acceptEqual: o.AcceptEqual,
		prefix: "fencecheck:target:" + unique.Hex(6) + ":"}
	if !IsSpec(spec) {
		return nil, fmt.Errorf("open %s: not a Redis target (want one of %v)", name, Schemes())
	}
	if err := o.validate(); err != nil {
		return nil, fmt.Errorf("open %s: %w", name, err)
	}
	opts, err := redis.ParseURL(spec)
	if err != nil {
		return nil, t.wrap("open", err)
	}
	opts.MaxRetries = -1 // see the package documentation
	opts.DialTimeout, opts.ReadTimeout, opts.WriteTimeout, opts.PoolTimeout = o.Timeout, o.Timeout, o.Timeout, o.Timeout
	opts.ContextTimeoutEnabled = true
	opts.PoolSize = poolSize(o.Workers)
	t.client = redis.NewClient(opts)
	if err := t.client.Ping(ctx).Err(); err != nil {
		t.client.Close()
		return nil, t.wrap("open", err)
	}
	switch {
	case o.Script != "":
		t.write = redis.NewScript(o.Script)
		if o.ReadScript != "" {
			t.read = redis.NewScript(o.ReadScript)
		}
	case o.Mode == ModeAtomic:
		t.write = atomicScript
	}
	if err := t.load(ctx); err != nil {
		t.client.Close()
		return nil, err
	}
	return t, nil
}

// poolSize is the number of connections for a run with workers workers:
// one each, as many again for writes still on their way after their
// worker stopped waiting (a watch write held in its window keeps its
// connection), and one for the harness's own reads.
func poolSize(workers int) int { return 2*max(workers, 1) + 1 }

// load sends the scripts to the server's cache (SCRIPT LOAD), which
// compiles them: a syntax error is a configuration error, found now
// rather than as an unknown outcome of every write.
func (t *Target) load(ctx context.Context) error {
	for _, s := range []struct {
		what   string
		script *redis.Script
	}{{"write script", t.write}, {"read script", t.read}} {
		if s.script == nil {
			continue
		}
		if err := s.script.Load(ctx, t.client).Err(); err != nil {
			return t.wrap("load the "+s.what+" into", err)
		}
	}
	return nil
}

// wrap names what failed and the target, without the password.
func (t *Target) wrap(what string, err error) error {
	return fmt.Errorf("%s %s: %w", what, t.name, redact.Error(err, t.secrets))
}

// Name returns the target spec with its password redacted.
func (t *Target) Name() string { return t.name }

// Mode returns the built-in mode, or "" for the user's own script.
func (t *Target) Mode() Mode { return t.mode }

// Prefix is what every key of the run starts with.
func (t *Target) Prefix() string { return t.prefix }

// key is the resource's key.
func (t *Target) key(resource string) string { return t.prefix + resource }

// MaxToken implements targets.TokenDomain. The built-in modes store
// tokens as decimal strings and compare them exactly (compareLua, or in
// Go as uint64), so they store every uint64. A user's script is the
// user's: fencecheck cannot know how it compares, and sends it every
// uint64, so that a script that compares with tonumber is found.
func (t *Target) MaxToken() uint64 { return ^uint64(0) }

// SetWindow sets what runs in check-then-set and watch between the
// comparison and the write; the harness uses it to hold a write there.
// In check-then-set a write held there lands on top of a newer one; in
// watch its EXEC is discarded, for the key changed. The other modes have
// no such window and never call it.
func (t *Target) SetWindow(window func(ctx context.Context, resource string, token uint64)) {
	t.window = window
}

// Setup implements targets.Setupper. Nothing needs creating: the keys
// come with the first write, and the scripts were loaded by Open.
func (t *Target) Setup(context.Context) error { return nil }

// Close closes the connection pool. It removes no key: Teardown does.
func (t *Target) Close() error { return t.client.Close() }

// The interfaces the harness looks for.
var (
	_ targets.Target          = (*Target)(nil)
	_ targets.Setupper        = (*Target)(nil)
	_ targets.Teardowner      = (*Target)(nil)
	_ targets.TokenDomain     = (*Target)(nil)
	_ targets.TokenlessWriter = (*Target)(nil)
	_ targets.Windowed        = (*Target)(nil)
)
