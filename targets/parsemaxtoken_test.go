package targets

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestParseMaxToken: a declared domain is read as a person writes it,
// and anything outside 1 … 2^64-1 is refused with the text quoted.
func TestParseMaxToken(t *testing.T) {
	for _, c := range []struct {
		in   string
		want uint64
		err  string
	}{
		{"", 0, ""},
		{"1000", 1000, ""},
		{"9223372036854775807", math.MaxInt64, ""},
		{"2^63-1", math.MaxInt64, ""},
		{"2^64-1", math.MaxUint64, ""},
		{"2^31-1", math.MaxInt32, ""},
		{"2^53", 1 << 53, ""},
		{"2^53+1", 1<<53 + 1, ""},
		{"18446744073709551615", math.MaxUint64, ""},
		{"0", 0, "out of range"},
		{"2^64", 0, "out of range"},
		{"18446744073709551616", 0, "out of range"},
		{"2^0-1", 0, "out of range"},
		{"-5", 0, "not a number"},
		{"+5", 0, "not a number"},
		{"2**63", 0, "not a number"},
		{"1e9", 0, "not a number"},
	} {
		t.Run(c.in, func(t *testing.T) {
			got, err := ParseMaxToken(c.in)
			if c.err != "" {
				require.Error(t, err)
				assert.True(t, strings.HasPrefix(err.Error(), strconv.Quote(c.in)+": "), "%v begins with the text", err)
				assert.Contains(t, err.Error(), c.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.want, got)
		})
	}
}

// FuzzParseMaxToken: whatever the text, a value it accepts is a token.
func FuzzParseMaxToken(f *testing.F) {
	for _, s := range []string{"1000", "2^63-1", "2^64-1", "2^53+1", "0", "2^64", "-1", "2^99999", "18446744073709551616"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseMaxToken(s)
		if err != nil || s == "" {
			return
		}
		require.Positive(t, v)
	})
}
