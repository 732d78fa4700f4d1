package harness

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRewordSaysEachFieldInTheCallersWords: every FieldError of a joined
// error is said as the caller words it, one a line, other errors as they
// are, and the FieldErrors are still found beneath.
func TestRewordSaysEachFieldInTheCallersWords(t *testing.T) {
	t.Parallel()
	word := func(fe *FieldError) string { return "--" + fe.Field + " is wrong: " + fe.Err.Error() }
	ttl := &FieldError{Field: "Leases.TTL", Err: errors.New("must be positive")}
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"one field", ttl, "--Leases.TTL is wrong: must be positive"},
		{"joined", errors.Join(ttl, errors.New("plain"), &FieldError{Field: "Workload.Workers", Err: errors.New("0")}),
			"--Leases.TTL is wrong: must be positive\nplain\n--Workload.Workers is wrong: 0"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := Reword(tc.err, word)
			assert.Equal(t, tc.want, err.Error())
			var fe *FieldError
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, "Leases.TTL", fe.Field)
		})
	}
}
