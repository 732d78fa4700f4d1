package nemesis

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParse(t *testing.T) {
	t.Parallel()
	cases := []struct {
		list  string
		names []string
		err   string
	}{
		{"pause,delay", []string{"pause", "delay"}, ""},
		{" expire , duplicate ", []string{"expire", "duplicate"}, ""},
		{"none", nil, ""},
		{"", nil, ""},
		{"pause,pause", nil, `"pause" listed twice`},
		{"paws", nil, `unknown fault "paws"`},
	}
	for _, tc := range cases {
		t.Run(tc.list, func(t *testing.T) {
			t.Parallel()
			faults, err := Parse(tc.list)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			var names []string
			for _, f := range faults {
				names = append(names, f.Name())
				assert.False(t, f.Active(), "faults start switched off")
			}
			assert.Equal(t, tc.names, names)
		})
	}
}

func TestParseWithExtras(t *testing.T) {
	t.Parallel()
	extra := Extra{Names: []string{"flood"}, New: func(name string) (Fault, bool) {
		if name == "flood" {
			return NewExpire(), true
		}
		return nil, false
	}}
	faults, err := ParseWith("pause,flood", extra)
	require.NoError(t, err)
	assert.Len(t, faults, 2)
	_, err = ParseWith("pause,drizzle", extra)
	assert.ErrorContains(t, err, "flood")
}

// TestNamesOfIsWhatParseReads: a list of faults named is the list they
// were parsed from.
func TestNamesOfIsWhatParseReads(t *testing.T) {
	t.Parallel()
	faults, err := Parse("expire,pause,duplicate")
	require.NoError(t, err)
	assert.Equal(t, []string{"expire", "pause", "duplicate"}, NamesOf(faults))
	assert.Empty(t, NamesOf(nil))
}
