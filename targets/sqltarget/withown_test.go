package sqltarget

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestWithOwnKeepsTheDefaultModeUnlessTold: nothing given keeps the
// default mode; a mode alone replaces it; statements clear it (or keep
// the mode given beside them, for Validate to refuse).
func TestWithOwnKeepsTheDefaultModeUnlessTold(t *testing.T) {
	t.Parallel()
	own := Statements{Write: []string{"UPDATE t SET v = :value"}, Read: "SELECT v FROM t"}
	cases := []struct {
		name      string
		mode      Mode
		st        Statements
		wantMode  Mode
		wantGiven bool
	}{
		{"nothing", "", Statements{}, ModeAtomic, false},
		{"a mode", ModeCheckThenSet, Statements{}, ModeCheckThenSet, false},
		{"statements", "", own, "", true},
		{"an isolation level alone", "", Statements{Isolation: "serializable"}, "", true},
		{"a mode beside statements", ModeAtomic, own, ModeAtomic, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := DefaultOptions().WithOwn(tc.mode, tc.st)
			assert.Equal(t, tc.wantMode, o.Mode)
			assert.Equal(t, tc.st, o.Statements)
			assert.Equal(t, tc.wantGiven, tc.st.Given())
		})
	}
}
