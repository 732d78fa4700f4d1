package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/fencecheck/fencecheck/internal/redact"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/targets/process"

	"github.com/fencecheck/fencecheck/targets"
	"github.com/fencecheck/fencecheck/targets/memory"
	"github.com/fencecheck/fencecheck/targets/redistarget"
	sqltarget "github.com/fencecheck/fencecheck/targets/sqltarget"
)

// openedTarget is a target opened from a spec, with what the harness needs
// to know about it.
type openedTarget struct {
	target targets.Target
	name   string // the spec, safe to print
	// deterministic: the target never blocks outside the harness, so the
	// run can use the seeded simulation.
	deterministic bool
	// maxToken is the largest token the receiver stores: --max-token or
	// what the target declares, the smaller (targetFlags.open).
	maxToken uint64
	close    func() error
}

// closeWarning closes the target and reports on w, as a warning, what
// its close could not free: the command's verdict stands.
func (t *openedTarget) closeWarning(w io.Writer) {
	if err := t.close(); err != nil {
		warn(w, []string{fmt.Sprintf("close %s: %v", t.name, err)})
	}
}

// warn reports warnings on w, the command's stderr: what went wrong
// around a run without changing its verdict or the exit code.
func warn(w io.Writer, warnings []string) {
	for _, s := range warnings {
		fmt.Fprintf(w, "fencecheck: warning: %s\n", s)
	}
}

// targetOptions is what opening a target may need besides its spec.
type targetOptions struct {
	http     httpFlags
	workers  int
	faults   []nemesis.Fault // the proxy's toxics among them go in front of an HTTP receiver
	child    *process.Child  // the receiver process of --exec
	sql      sqltarget.Options
	sqlSet   bool // a --sql-* flag was given
	redis    redistarget.Options
	redisSet bool // a --redis-* flag was given
}

// openTarget opens a target spec, behind the TCP fault proxy when the
// run has TCP faults (any scheme reached over TCP gets them, see
// tcpfaults.go).
func openTarget(ctx context.Context, spec string, o targetOptions) (*openedTarget, error) {
	return openThroughTCPProxy(spec, o.faults, func(spec string) (*openedTarget, error) { return openSpec(ctx, spec, o) })
}

// openSpec opens a target spec. Every scheme names its own package; there
// is no registry.
func openSpec(ctx context.Context, spec string, o targetOptions) (*openedTarget, error) {
	scheme, rest, ok := strings.Cut(spec, "://")
	if !ok {
		return nil, &usageError{fmt.Errorf("--target: %q is not a target spec (want memory://NAME)", redact.Spec(spec))}
	}
	if o.http.credentialsGiven() && scheme != "http" && scheme != "https" {
		return nil, &usageError{fmt.Errorf("--header and --basic-auth-file need an http:// target, not %q", scheme)}
	}
	if o.sqlSet && !sqltarget.IsSpec(spec) {
		return nil, &usageError{fmt.Errorf("--sql-* flags need a SQL target (%v), not %q", sqltarget.Schemes(), scheme)}
	}
	if o.redisSet && !redistarget.IsSpec(spec) {
		return nil, &usageError{fmt.Errorf("--redis-* flags need a Redis target (%v), not %q", redistarget.Schemes(), scheme)}
	}
	switch scheme {
	case "memory":
		t, err := memory.Open(rest)
		if err != nil {
			return nil, &usageError{fmt.Errorf("--target: %w", err)}
		}
		return &openedTarget{target: t, name: redact.Spec(spec), deterministic: true, close: func() error { return nil }}, nil
	case "http", "https":
		return openHTTP(spec, o)
	case "sqlite", "postgres", "postgresql", "mysql":
		// A real database on the real clock: never deterministic.
		if o.sql.Timeout <= 0 {
			return nil, &usageError{fmt.Errorf("--sql-timeout: must be positive")}
		}
		t, err := sqltarget.Open(ctx, spec, o.sql)
		if err != nil {
			return nil, err
		}
		return &openedTarget{target: t, name: sqlTargetName(t), close: t.Close}, nil
	case "redis", "rediss":
		// A real server on the real clock: never deterministic.
		if o.redis.Timeout <= 0 {
			return nil, &usageError{fmt.Errorf("--redis-timeout: must be positive")}
		}
		t, err := redistarget.Open(ctx, spec, o.redis)
		if err != nil {
			return nil, err
		}
		return &openedTarget{target: t, name: redisTargetName(t), close: t.Close}, nil
	}
	return nil, &usageError{fmt.Errorf("--target: unsupported scheme %q in %q (want memory://, sqlite://, postgres://, mysql://, redis://, http://)", scheme, redact.Spec(spec))}
}
