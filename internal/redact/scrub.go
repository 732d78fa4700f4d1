package redact

import "strings"

// Scrub replaces every secret in s by Mask.
func Scrub(s string, secrets []string) string {
	for _, secret := range secrets {
		s = strings.ReplaceAll(s, secret, Mask)
	}
	return s
}

// Error returns err with the secrets scrubbed from its message. It
// unwraps to err, so errors.Is and errors.As still find what err wraps (a
// driver's ErrBadConn, targets.ErrDefinitelyNotApplied, a usage error). A
// nil err stays nil, and with no secrets err is returned as it is.
func Error(err error, secrets []string) error {
	if err == nil || len(secrets) == 0 {
		return err
	}
	return &scrubbed{err: err, secrets: secrets}
}

type scrubbed struct {
	err     error
	secrets []string
}

func (s *scrubbed) Error() string { return Scrub(s.err.Error(), s.secrets) }
func (s *scrubbed) Unwrap() error { return s.err }
