package httptarget

import (
	"errors"
	"fmt"
	"strings"
)

// problems collects what is wrong with an adapter, each problem naming
// its field, so that one error lists them all.
type problems []error

// add records a problem of a field.
func (p *problems) add(field, format string, args ...any) {
	*p = append(*p, fmt.Errorf("%s: %s", field, fmt.Sprintf(format, args...)))
}

// under records each line of err as a problem below field: a rule's
// "match.regex: …" becomes "write.outcomes[2].match.regex: …".
func (p *problems) under(field string, err error) {
	if err == nil {
		return
	}
	for _, line := range strings.Split(err.Error(), "\n") {
		*p = append(*p, errors.New(field+"."+line))
	}
}

// err is the problems as one error, nil when there are none.
func (p problems) err() error { return errors.Join(p...) }
