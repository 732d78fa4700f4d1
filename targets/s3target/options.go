package s3target

import (
	"fmt"
	"time"
)

// Mode is a built-in way of writing with the token.
type Mode string

// Built-in modes.
const (
	// ModeCAS keeps the token and the value in one object: read it with
	// its ETag, refuse a lower token, PUT with If-Match: <ETag> (the first
	// write with If-None-Match: *). A 412 means another write landed
	// between the read and the PUT: read again and decide again. Correct.
	ModeCAS Mode = "cas"
	// ModeEpochKeys gives each token its own object,
	// <resource>/<token in 20 digits>, created with If-None-Match: *; the
	// current value is the highest key's, found by listing the
	// resource's prefix. Correct.
	ModeEpochKeys Mode = "epoch-keys"
	// ModeETagOnly reads the object's ETag right before its PUT and sends
	// If-Match with it, comparing no token: the ETag guards against a
	// concurrent change, not against an old owner, so a writer that
	// re-reads first overwrites a newer token. Broken on purpose.
	ModeETagOnly Mode = "etag-only"
	// ModeUnconditional is a plain PUT. Broken on purpose.
	ModeUnconditional Mode = "unconditional"
)

// Modes lists the built-in modes, for help texts and errors.
func Modes() []Mode { return []Mode{ModeCAS, ModeEpochKeys, ModeETagOnly, ModeUnconditional} }

// Options configure an S3 target. DefaultOptions gives the defaults; a
// zero field means zero.
type Options struct {
	// Mode is the built-in way of writing.
	Mode Mode
	// Workers is the number of concurrent workers the HTTP client's
	// connection pool serves; at least 1.
	Workers int
	// AcceptEqual makes the modes accept a repeat of the current token
	// (the accept-equal policy); without it they need a higher one.
	AcceptEqual bool
	// Timeout bounds every request. It must be positive.
	Timeout time.Duration
	// Region is the region the requests are signed for; empty, the
	// spec's ?region=, else us-east-1 (what MinIO and most S3-compatible
	// stores accept).
	Region string
	// Credentials are the access key and secret to sign with; nil, the
	// SDK's chain without the EC2 metadata service: the environment
	// (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN), then
	// the shared credentials file (AWS_PROFILE,
	// AWS_SHARED_CREDENTIALS_FILE). They never reach an error or a name.
	Credentials *Credentials

	_ struct{}
}

// Credentials are a static access key.
type Credentials struct {
	AccessKeyID, SecretAccessKey string
}

// DefaultOptions are the cas mode with a pool for the harness's 8
// workers and 5s per request: long past a healthy loopback store's
// answer.
func DefaultOptions() Options {
	return Options{Mode: ModeCAS, Workers: 8, Timeout: 5 * time.Second}
}

func (o *Options) validate() error {
	switch {
	case o.Workers < 1:
		return fmt.Errorf("options: Workers must be at least 1, not %d", o.Workers)
	case o.Timeout <= 0:
		return fmt.Errorf("options: Timeout must be positive, not %v", o.Timeout)
	}
	for _, m := range Modes() {
		if o.Mode == m {
			return nil
		}
	}
	return fmt.Errorf("unknown s3-mode %q (want one of %v)", o.Mode, Modes())
}
