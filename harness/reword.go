package harness

import (
	"errors"
	"strings"
)

// Reword says an error of Config.Validate in a caller's words: each
// *FieldError as word says it (the CLI names the flag that sets the
// field), one a line; an error that is no FieldError stays as it is. The
// result still wraps err, so that a caller below finds each FieldError
// with errors.As.
func Reword(err error, word func(*FieldError) string) error {
	var errs []error
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		errs = joined.Unwrap()
	} else {
		errs = []error{err}
	}
	lines := make([]string, len(errs))
	for i, e := range errs {
		lines[i] = e.Error()
		if fe := (*FieldError)(nil); errors.As(e, &fe) {
			lines[i] = word(fe)
		}
	}
	return &reworded{text: strings.Join(lines, "\n"), err: err}
}

// reworded is an error said in a caller's terms that keeps the error it
// says.
type reworded struct {
	text string
	err  error
}

func (r *reworded) Error() string { return r.text }
func (r *reworded) Unwrap() error { return r.err }
