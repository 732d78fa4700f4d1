package lease

import "errors"

// ErrUnavailable marks an error of a Store call that the issuer did not
// answer: its server is down, restarting or frozen past the call's
// timeout, or the connection broke on the way. Such a call may have
// taken effect on the issuer or not; another attempt is safe, since a
// grant whose answer was lost leaves a lease that no worker holds, which
// runs out by its TTL, and consumes a token nobody carries. An error the
// issuer answered with (a counter at its end, a refused statement) is
// not one: trying again would get the same answer.
var ErrUnavailable = errors.New("the token issuer did not answer")

// Unavailable marks err as ErrUnavailable, keeping its message.
func Unavailable(err error) error {
	if err == nil {
		return nil
	}
	return unavailableError{err}
}

type unavailableError struct{ err error }

func (e unavailableError) Error() string   { return e.err.Error() }
func (e unavailableError) Unwrap() []error { return []error{e.err, ErrUnavailable} }
