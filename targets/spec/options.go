package targetspec

import (
	"errors"
	"fmt"
	"time"

	"github.com/fencecheck/fencecheck/nemesis"
	httptarget "github.com/fencecheck/fencecheck/targets/httptarget"
	"github.com/fencecheck/fencecheck/targets/natstarget"
	"github.com/fencecheck/fencecheck/targets/redistarget"
	"github.com/fencecheck/fencecheck/targets/s3target"
	sqltarget "github.com/fencecheck/fencecheck/targets/sqltarget"
)

// Options are what opening a target may need besides its spec.
// DefaultOptions gives every field its default; a zero field means zero.
type Options struct {
	// Workers is how many workers use the target at once: its connection
	// pool's size (HTTP, SQL, Redis); below 1 is 1.
	Workers int
	// AcceptEqual says that the run's policy accepts a write with the
	// current token: the built-in SQL and Redis writes follow it.
	AcceptEqual bool
	// MaxToken is the largest token the receiver stores as the caller
	// declares it (targets.ParseMaxToken reads "2^63-1"); 0: what the
	// target declares, else 2^64-1. Target.MaxToken is the smaller.
	MaxToken uint64
	// Faults are the run's faults, for Open: those that act in a fault
	// proxy get one in front of the receiver, and a fault that cannot act
	// at the spec's Site is refused. Spec.Open takes them as its argument
	// instead, since the process faults need Spec.Process first.
	Faults []nemesis.Fault
	// HTTP are the options of http:// and https:// targets.
	HTTP HTTPOptions
	// Exec starts the receiver of an http:// target as a child process.
	Exec ExecOptions
	// SQL are the options of sqlite://, postgres:// and mysql:// targets;
	// nil, sqltarget.DefaultOptions(). Workers and AcceptEqual replace
	// theirs. Given for a target of another kind, they are refused: they
	// would be ignored.
	SQL *sqltarget.Options
	// Redis are the options of redis:// and rediss:// targets, as SQL's.
	Redis *redistarget.Options
	// NATS are the options of nats:// targets, as SQL's; its Command runs
	// the private server of nats://embedded.
	NATS *natstarget.Options
	// S3 are the options of s3:// targets, as SQL's; their Credentials
	// are set by Open for the embedded store.
	S3 *s3target.Options
	// Terms words Options' fields in errors as the caller sets them; nil
	// words them as Go code does ("Options.SQL.Timeout").
	Terms Terms
	_     struct{}
}

// HTTPOptions are the options of an HTTP target.
type HTTPOptions struct {
	// Adapter is a JSON adapter file that maps the receiver's API onto
	// the protocol (docs/http-protocol.md); empty, the protocol itself.
	Adapter string
	// Timeout bounds each request (an unknown outcome when it passes);
	// 0: none.
	Timeout time.Duration
	// Header lines ("Name: value") are sent with every request, and
	// BasicAuthFile, a file that holds user:password, as Basic
	// authentication. Their values never reach an error or a name.
	Header        []string
	BasicAuthFile string
	_             struct{}
}

// ExecOptions start the receiver as a child process, which the run stops
// at the end (targets/process): the process faults act on it, and its
// output goes to the run directory.
type ExecOptions struct {
	// Command is the receiver's command line (sh -c); empty, none. It is
	// refused while something already answers on the target's address.
	Command string
	// Ready says when the receiver is ready (process.ParseReady): tcp,
	// http-get:PATH, cmd:COMMAND; empty, tcp.
	Ready string
	// LogFail are regular expressions (Go syntax) that mark a bug in a
	// line of the receiver's output, as panic:, fatal error: and DATA
	// RACE always do.
	LogFail []string
	_       struct{}
}

// DefaultOptions are one worker and the HTTP target's request timeout.
func DefaultOptions() Options {
	return Options{Workers: 1, HTTP: HTTPOptions{Timeout: httptarget.DefaultOptions().Timeout}}
}

// Terms words an Options field, as Options names it ("SQL.Timeout",
// "Spec" for the spec itself), the way the caller sets it: the CLI as
// its flag (--sql-timeout).
type Terms func(field string) string

// word is field in the caller's terms.
func (o *Options) word(field string) string {
	if o.Terms != nil {
		return o.Terms(field)
	}
	if field == "Spec" {
		return "the target spec"
	}
	return "Options." + field
}

// FieldError is what is wrong with the spec or one of Options' fields,
// worded in the caller's Terms.
type FieldError struct {
	Field string // as Options names it: "SQL.Timeout", or "Spec"
	msg   string
	err   error
}

func (e *FieldError) Error() string { return e.msg }
func (e *FieldError) Unwrap() error { return e.err }

// bad is the FieldError of field: its word, then what format says.
func (o *Options) bad(field, format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	return &FieldError{Field: field, msg: o.word(field) + ": " + err.Error(), err: errors.Unwrap(err)}
}

// badf is the FieldError of field worded whole by format.
func (o *Options) badf(field, format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	return &FieldError{Field: field, msg: err.Error(), err: errors.Unwrap(err)}
}
