package main

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/pflag"

	"github.com/fencecheck/fencecheck/internal/redact"
	"github.com/fencecheck/fencecheck/targets"
	"github.com/fencecheck/fencecheck/targets/natstarget"
	"github.com/fencecheck/fencecheck/targets/process"
	"github.com/fencecheck/fencecheck/targets/redistarget"
	"github.com/fencecheck/fencecheck/targets/s3target"
	targetspec "github.com/fencecheck/fencecheck/targets/spec"
	sqltarget "github.com/fencecheck/fencecheck/targets/sqltarget"
)

// targetHelp is the --target flag's help, the same for every command.
const targetHelp = "the receiver under test: memory://fenced, memory://unfenced, memory://check-then-set, memory://accept-equal, sqlite:///path/to.db, sqlite://:memory:, postgres://user@127.0.0.1:5432/db, mysql://user:pass@127.0.0.1:3306/db, redis://[user:pass@]127.0.0.1:6379/0 (or rediss:// for TLS), nats://[user:pass@]127.0.0.1:4222 (JetStream KV), nats (a private NATS server; nats://embedded?sync=always fsyncs every write), s3://HOST:PORT/BUCKET, s3://embedded/BUCKET (an S3 store in the process), http://HOST:PORT"

// maxTokenHelp is the --max-token flag's help, the same for every command.
const maxTokenHelp = "the largest token the receiver stores, in decimal or as 2^N, 2^N-K, 2^N+K (a BIGINT column: 2^63-1); fencecheck never sends a larger one, and verify tests the boundaries below it (default: what the target declares, else 2^64-1; see docs/running.md)"

// targetFlags are the flags of every command that takes a target (run,
// verify, compare-fixes, sweep): the spec and the options of every kind
// of target, read into targets/spec's Options. They are registered in
// one place so that no command lacks an option another has: a receiver
// that needs --sql-write to be reached by run needs it as much to be
// verified.
type targetFlags struct {
	spec     string
	maxToken string // --max-token as given
	http     httpFlags
	exec     execFlags
	sql      sqlFlags
	redis    redisFlags
	nats     natsFlags
	s3Mode   string
	flags    *pflag.FlagSet // to tell a given --ready from its default
}

// httpFlags are the options of HTTP targets.
type httpFlags struct {
	adapter        string
	requestTimeout time.Duration
	headers        []string // --header Name: value, repeated
	basicAuthFile  string
}

// execFlags start the receiver as a child process.
type execFlags struct {
	command, ready string
	logFail        []string // --log-fail REGEX, repeated
}

func (t *targetFlags) register(fl *pflag.FlagSet) {
	t.flags = fl
	fl.StringVar(&t.spec, "target", "", targetHelp)
	fl.StringVar(&t.maxToken, "max-token", "", maxTokenHelp)
	h, e := &t.http, &t.exec
	fl.StringVar(&h.adapter, "adapter", "", "JSON adapter mapping an HTTP receiver's API onto the protocol (docs/http-protocol.md)")
	fl.DurationVar(&h.requestTimeout, "request-timeout", targetspec.DefaultOptions().HTTP.Timeout, "HTTP targets: timeout of each request (an unknown outcome when it passes; 0: none)")
	fl.StringVar(&e.command, "exec", "", `start the receiver as a child process (sh -c CMD), wait until it is ready (--ready), stop it at the end; output goes to the run directory. Refused while something already answers on the target's address`)
	fl.StringArrayVar(&h.headers, "header", nil, `HTTP targets: a header sent with every request, "Name: value" (repeatable), e.g. "Authorization: Bearer …"; values are never printed or stored`)
	fl.StringVar(&h.basicAuthFile, "basic-auth-file", "", "HTTP targets: a file holding user:password, sent as Basic authentication with every request; never printed or stored")
	fl.StringArrayVar(&e.logFail, "log-fail", nil, `with --exec: a regular expression (Go syntax) that marks a bug in a line of the receiver's output (repeatable); a matching line fails the run or the battery (exit 1), as a crash that ended the receiver (Go, Python, Java, Node, Rust) and a data race always do`)
	fl.StringVar(&e.ready, "ready", process.DefaultReady, `with --exec: when the receiver is ready: tcp (it accepts a TCP connection on the target's host:port), http-get:PATH (GET PATH gets any HTTP answer), cmd:COMMAND (sh -c COMMAND exits 0); counted only while the started process is alive`)
	t.sql.register(fl)
	t.redis.register(fl)
	t.nats.register(fl)
	fl.StringVar(&t.s3Mode, "s3-mode", "", "S3 targets: cas (GET with the ETag, refuse a lower token, PUT If-Match; the default), epoch-keys (a key per token, If-None-Match: *), etag-only (If-Match on the ETag alone: broken on purpose) or unconditional (broken); see docs/object-stores.md")
}

// flagWords names the flag that sets each field of targets/spec's
// Options, for its errors.
var flagWords = map[string]string{
	"Spec": "--target", "MaxToken": "--max-token", "Faults": "--nemesis", "HTTP.Adapter": "--adapter",
	"HTTP.Timeout": "--request-timeout", "HTTP.Header": "--header", "HTTP.BasicAuthFile": "--basic-auth-file",
	"Exec.Command": "--exec", "Exec.Ready": "--ready", "Exec.LogFail": "--log-fail", "SQL": "--sql-* flags",
	"SQL.Timeout": "--sql-timeout", "Redis": "--redis-* flags", "Redis.Timeout": "--redis-timeout",
	"NATS": "--nats-mode",
	"S3":   "--s3-mode",
}

func flagWord(field string) string { return flagWords[field] }

// usage marks what targets/spec refused as a bad flag (it is worded as
// the flags already).
func usage(err error) error {
	var fe *targetspec.FieldError
	if errors.As(err, &fe) {
		return &usageError{err}
	}
	return err
}

// scrub removes the target's credentials from err, about to be printed:
// the spec's and those of --header and --basic-auth-file, once more, for
// those a layer below quoted without knowing them.
func (t *targetFlags) scrub(err error) error {
	if err == nil {
		return nil
	}
	return redact.Error(err, targetspec.Secrets(t.spec, t.httpOptions()))
}

func (t *targetFlags) httpOptions() targetspec.HTTPOptions {
	return targetspec.HTTPOptions{Adapter: t.http.adapter, Timeout: t.http.requestTimeout, Header: t.http.headers, BasicAuthFile: t.http.basicAuthFile}
}

// required reports a missing --target.
func (t *targetFlags) required() error {
	if t.spec == "" {
		return &usageError{fmt.Errorf("--target: required")}
	}
	return nil
}

// parse reads the target flags into a target spec, for workers at once
// under the run's policy; nothing is opened yet.
func (t *targetFlags) parse(workers int, acceptEqual bool) (*targetspec.Spec, error) {
	o := targetspec.DefaultOptions()
	o.Workers, o.AcceptEqual, o.Terms, o.HTTP = workers, acceptEqual, flagWord, t.httpOptions()
	var err error
	if o.MaxToken, err = targets.ParseMaxToken(t.maxToken); err != nil {
		return nil, &usageError{fmt.Errorf("--max-token %w", err)}
	}
	o.Exec = targetspec.ExecOptions{Command: t.exec.command, LogFail: t.exec.logFail}
	if t.flags.Changed("ready") {
		o.Exec.Ready = t.exec.ready
	}
	if t.sql.given() || sqltarget.IsSpec(t.spec) {
		sql := t.sql.options()
		o.SQL = &sql
	}
	if t.redis.given() && !redistarget.IsSpec(t.spec) {
		o.Redis = &redistarget.Options{} // refused for what it is: Redis flags elsewhere
	} else if redistarget.IsSpec(t.spec) {
		r, err := t.redis.options()
		if err != nil {
			return nil, err
		}
		o.Redis = &r
	}
	if t.nats.mode != "" && !natstarget.IsSpec(t.spec) && t.spec != "nats" {
		o.NATS = &natstarget.Options{} // refused for what it is: --nats-mode elsewhere
	} else if natstarget.IsSpec(t.spec) || t.spec == "nats" {
		n, err := t.nats.options()
		if err != nil {
			return nil, err
		}
		o.NATS = &n
	}
	if t.s3Mode != "" || s3target.IsSpec(t.spec) {
		s3 := s3target.DefaultOptions()
		if t.s3Mode != "" {
			s3.Mode = s3target.Mode(t.s3Mode)
		}
		o.S3 = &s3
	}
	s, err := targetspec.Parse(t.spec, o)
	return s, usage(err)
}

// closeTarget closes t and reports on w, as a warning, what its close
// could not free: the command's verdict stands.
func closeTarget(t *targetspec.Target, w io.Writer) {
	if err := t.Close(); err != nil {
		warn(w, []string{fmt.Sprintf("close %s: %v", t.Name, err)})
	}
}
