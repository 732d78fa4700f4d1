package sqltarget

import (
	"net/url"
	"strings"
)

// Redact returns a target spec safe to print: a password in the user
// information or in a password query parameter is replaced by xxxxx. A
// spec that does not parse as a URL is reduced to its scheme.
func Redact(spec string) string {
	scheme, _, ok := strings.Cut(spec, "://")
	if !ok {
		return "(unparsable target spec)"
	}
	if scheme == "sqlite" {
		return spec // a file path has no password
	}
	u, err := url.Parse(spec)
	if err != nil {
		return scheme + "://(unparsable)"
	}
	q := u.Query()
	if q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.Redacted()
}

// secrets lists the passwords in spec, so that they can be scrubbed from
// driver errors, which are not written with printing in mind.
func secrets(spec string) []string {
	u, err := url.Parse(spec)
	if err != nil {
		return nil
	}
	var s []string
	if p, ok := u.User.Password(); ok && p != "" {
		s = append(s, p, url.QueryEscape(p), url.PathEscape(p))
	}
	if p := u.Query().Get("password"); p != "" {
		s = append(s, p, url.QueryEscape(p))
	}
	return s
}

// scrubbed is an error whose message has the secrets replaced. It unwraps
// to the original, so errors.Is still finds driver.ErrBadConn and
// targets.ErrDefinitelyNotApplied.
type scrubbed struct {
	err     error
	secrets []string
}

func (s *scrubbed) Error() string {
	msg := s.err.Error()
	for _, secret := range s.secrets {
		msg = strings.ReplaceAll(msg, secret, "xxxxx")
	}
	return msg
}

func (s *scrubbed) Unwrap() error { return s.err }

func scrub(err error, secrets []string) error {
	if err == nil || len(secrets) == 0 {
		return err
	}
	return &scrubbed{err: err, secrets: secrets}
}
