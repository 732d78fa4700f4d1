// Package targetspec reads a target spec: the text that names the
// receiver under test (memory://fenced, sqlite:///path/to.db,
// postgres://…, mysql://…, redis://…, nats://…, s3://…, http://…), as the
// CLI's --target
// and fencetest.Target take it, and opens it with what a run needs
// around it: the receiver process Options.Exec starts, the fault proxies
// in front of the receiver for the run's faults that act in one
// (nemesis/proxy on HTTP requests, nemesis/tcpproxy on the bytes of any
// receiver reached over TCP), and the token domain.
//
//	Parse(spec, Options) ──> Spec ──ParseFaults(list)──> faults
//	                          └──Open(ctx, faults)──> Target{Target, Name, MaxToken, …}
//
// Parse only reads the spec and its options and connects to nothing, so
// that a bad spec is reported before a run starts; Open connects, and
// starts the proxies. Every scheme names its own package; there is no
// registry. Its errors are *FieldError values worded in the caller's
// Terms, and neither they nor a Target's Name show a password, a header
// value or the content of a credentials file (internal/redact).
package targetspec

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/fencecheck/fencecheck/internal/redact"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/targets"
	httptarget "github.com/fencecheck/fencecheck/targets/httptarget"
	"github.com/fencecheck/fencecheck/targets/memory"
	"github.com/fencecheck/fencecheck/targets/natstarget"
	"github.com/fencecheck/fencecheck/targets/process"
	"github.com/fencecheck/fencecheck/targets/redistarget"
	"github.com/fencecheck/fencecheck/targets/s3target"
	sqltarget "github.com/fencecheck/fencecheck/targets/sqltarget"
)

// Spec is a target spec read with its options: what Open opens.
type Spec struct {
	spec   string
	scheme string
	rest   string // after scheme://
	o      Options
	child  *process.Child // Options.Exec's receiver process, or nil
	// adapter and header are an HTTP target's, read from Options.HTTP.
	adapter httptarget.Adapter
	header  http.Header
	// private is nats://embedded's server, which the process faults act
	// on; nil for every other spec.
	private *natstarget.Private
}

// Parse reads spec and o, and reports what is wrong with them before
// anything is opened.
func Parse(spec string, o Options) (*Spec, error) {
	if spec == "nats" {
		spec = "nats://" + natstarget.EmbeddedHost
	}
	s := &Spec{spec: spec, o: o}
	if err := s.parseExec(); err != nil {
		return nil, err
	}
	if err := s.parseKind(); err != nil {
		return nil, err
	}
	return s, nil
}

// Open opens the target spec names with o, behind the fault proxies that
// o.Faults act in; close it with Target.Close.
func Open(ctx context.Context, spec string, o Options) (*Target, error) {
	s, err := Parse(spec, o)
	if err != nil {
		return nil, err
	}
	return s.Open(ctx, o.Faults)
}

// Name is the spec as it may be printed: without its password.
func (s *Spec) Name() string { return redact.Spec(s.spec) }

// Process is the receiver process Options.Exec starts, for the faults
// that act on it (nemesis.NewKill); nil without Exec.
func (s *Spec) Process() nemesis.Process {
	if s.private != nil {
		return s.private
	}
	if s.child == nil {
		return nil
	}
	return s.child
}

// Secrets are the credentials of the spec and of Options.HTTP, in every
// form an error may quote them: what internal/redact masks.
func (s *Spec) Secrets() []string { return Secrets(s.spec, s.o.HTTP) }

// parseKind reads the scheme and what the kind of target it names needs.
func (s *Spec) parseKind() error {
	o := &s.o
	scheme, rest, ok := strings.Cut(s.spec, "://")
	if !ok {
		return o.bad("Spec", "%q is not a target spec (want memory://NAME)", s.Name())
	}
	s.scheme, s.rest = scheme, rest
	switch {
	case o.HTTP.credentials() && !isHTTP(s.spec):
		return o.badf("HTTP", "%s and %s need an http:// target, not %q", o.word("HTTP.Header"), o.word("HTTP.BasicAuthFile"), scheme)
	case o.SQL != nil && !sqltarget.IsSpec(s.spec):
		return o.badf("SQL", "%s need a SQL target (%v), not %q", o.word("SQL"), sqltarget.Schemes(), scheme)
	case o.Redis != nil && !redistarget.IsSpec(s.spec):
		return o.badf("Redis", "%s need a Redis target (%v), not %q", o.word("Redis"), redistarget.Schemes(), scheme)
	case o.NATS != nil && !natstarget.IsSpec(s.spec):
		return o.badf("NATS", "%s need a NATS target (nats://HOST:PORT, nats://embedded), not %q", o.word("NATS"), scheme)
	case o.S3 != nil && !s3target.IsSpec(s.spec):
		return o.badf("S3", "%s need an S3 target (s3://), not %q", o.word("S3"), scheme)
	}
	switch scheme {
	case "memory":
		if _, err := memory.Open(rest); err != nil {
			return o.bad("Spec", "%w", err)
		}
		return nil
	case "http", "https":
		return s.parseHTTP()
	case "sqlite", "postgres", "postgresql", "mysql":
		if s.sqlOptions().Timeout <= 0 {
			return o.bad("SQL.Timeout", "must be positive")
		}
		return nil
	case "redis", "rediss":
		if s.redisOptions().Timeout <= 0 {
			return o.bad("Redis.Timeout", "must be positive")
		}
		return nil
	case "nats":
		return s.parseNATS()
	case "s3":
		if err := s3target.CheckSpec(s.spec); err != nil {
			return o.bad("Spec", "%w", err)
		}
		if err := s.s3Options().Check(); err != nil {
			return o.bad("S3", "%w", err)
		}
		return nil
	}
	return o.bad("Spec", "unsupported scheme %q in %q (want memory://, sqlite://, postgres://, mysql://, redis://, nats://, s3://, http://)", scheme, s.Name())
}

// Open opens the target behind the fault proxies the faults act in,
// once each fault said it can act at the spec's Site (CheckFaults). A
// SQL, Redis or HTTP target connects; a receiver process of Exec starts
// when the run sets the target up (targets.Setupper).
func (s *Spec) Open(ctx context.Context, faults []nemesis.Fault) (*Target, error) {
	if err := s.CheckFaults(faults); err != nil {
		return nil, err
	}
	if s3target.IsEmbedded(s.spec) {
		return s.openEmbeddedS3(ctx, faults)
	}
	t, err := s.openThroughTCPProxy(s.spec, faults, func(spec string) (*Target, error) { return s.open(ctx, spec, faults) })
	if err != nil {
		return nil, err
	}
	t.MaxToken = targets.Domain(t.Target, s.o.MaxToken)
	return t, nil
}

// open opens spec, which is s's own or the one that reaches its
// receiver through the TCP fault proxy.
func (s *Spec) open(ctx context.Context, spec string, faults []nemesis.Fault) (*Target, error) {
	switch s.scheme {
	case "memory":
		t, _ := memory.Open(s.rest) // Parse read the name
		return &Target{Target: t, Name: s.Name(), Deterministic: true}, nil
	case "http", "https":
		return s.openHTTP(spec, faults)
	case "nats":
		return s.openNATS(ctx, spec)
	case "redis", "rediss":
		// A real server on the real clock: never deterministic.
		t, err := redistarget.Open(ctx, spec, s.redisOptions())
		if err != nil {
			return nil, err
		}
		return &Target{Target: t, Name: named(t.Name(), string(t.Mode()), "own script"), closers: []func() error{t.Close}}, nil
	case "s3":
		return s.openS3(ctx, spec, s.s3Options())
	}
	// A real database on the real clock: never deterministic.
	t, err := sqltarget.Open(ctx, spec, s.sqlOptions())
	if err != nil {
		return nil, err
	}
	return &Target{Target: t, Name: named(t.Name(), string(t.Mode()), "own statements"), closers: []func() error{t.Close}}, nil
}

// named is a SQL or Redis target's name: its spec without the password,
// and how it writes (its mode, or the user's own).
func named(name, mode, own string) string {
	if mode == "" {
		mode = own
	}
	return name + " (" + mode + ")"
}

// sqlOptions are the SQL target's options with the run's workers and
// policy.
func (s *Spec) sqlOptions() sqltarget.Options {
	o := sqltarget.DefaultOptions()
	if s.o.SQL != nil {
		o = *s.o.SQL
	}
	o.Workers, o.AcceptEqual = max(s.o.Workers, 1), s.o.AcceptEqual
	return o
}

// redisOptions are the Redis target's options with the run's workers and
// policy.
func (s *Spec) redisOptions() redistarget.Options {
	o := redistarget.DefaultOptions()
	if s.o.Redis != nil {
		o = *s.o.Redis
	}
	o.Workers, o.AcceptEqual = max(s.o.Workers, 1), s.o.AcceptEqual
	return o
}

// s3Options are the S3 target's options with the run's workers and
// policy.
func (s *Spec) s3Options() s3target.Options {
	o := s3target.DefaultOptions()
	if s.o.S3 != nil {
		o = *s.o.S3
	}
	o.Workers, o.AcceptEqual = max(s.o.Workers, 1), s.o.AcceptEqual
	return o
}

// Target is a target opened from a spec, with what a run needs to know
// of it.
type Target struct {
	// Target is the receiver as the workers reach it: through the fault
	// proxies, and a process.Target when Exec started it.
	Target targets.Target
	// Name is the spec without its password, and for SQL and Redis how
	// it writes: what the run store names the run's folder after.
	Name string
	// Deterministic: the target never blocks outside the harness, so a
	// run can use the seeded simulation.
	Deterministic bool
	// MaxToken is the largest token the receiver stores: the smaller of
	// Options.MaxToken and what the target declares (targets.Domain).
	MaxToken uint64
	closers  []func() error
}

// Close closes the target and the fault proxies in front of it.
func (t *Target) Close() error {
	var errs []error
	for i := len(t.closers) - 1; i >= 0; i-- {
		errs = append(errs, t.closers[i]())
	}
	return errors.Join(errs...)
}
