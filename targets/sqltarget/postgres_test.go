package sqltarget

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestNamesExecMode checks that a URL that names pgx's exec mode keeps
// it (openPostgres).
func TestNamesExecMode(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		spec string
		want bool
	}{
		{"postgres://u@127.0.0.1:5432/db?sslmode=disable", false},
		{"postgres://u@127.0.0.1:5432/db?sslmode=disable&default_query_exec_mode=cache_statement", true},
		{"host=127.0.0.1 dbname=db default_query_exec_mode=exec", true},
		{"postgres://%zz", false}, // unparsable: pgx reports it when opening
	} {
		assert.Equal(t, tc.want, namesExecMode(tc.spec), tc.spec)
	}
}
