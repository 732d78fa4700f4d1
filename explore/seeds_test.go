package explore

import (
	"math"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseSeeds(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		want Seeds
		len  uint64
		err  string
	}{
		{"1-10000", Seeds{1, 10000}, 10000, ""},
		{"7-7", Seeds{7, 7}, 1, ""},
		{"0-3", Seeds{0, 3}, 4, ""},
		{" 20 ", Seeds{1, 20}, 20, ""},
		{"0-18446744073709551615", Seeds{0, math.MaxUint64}, math.MaxUint64, ""},
		{"10-1", Seeds{}, 0, "want A-B"},
		{"0", Seeds{}, 0, "no seed at all"},
		{"", Seeds{}, 0, "want A-B"},
		{"1-", Seeds{}, 0, "want A-B"},
		{"-5", Seeds{}, 0, "want A-B"},
		{"1-2-3", Seeds{}, 0, "want A-B"},
		{"+5", Seeds{}, 0, "want A-B"},
		{"1e3", Seeds{}, 0, "want A-B"},
		{"18446744073709551616", Seeds{}, 0, "not a 64-bit seed"},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			got, err := ParseSeeds(tc.in)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				assert.ErrorIs(t, err, ErrSeeds)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.len, got.Len())
		})
	}
}

// FuzzParseSeeds: a range that parses is a valid one, and its String
// parses back to the same range.
func FuzzParseSeeds(f *testing.F) {
	for _, s := range []string{"1-10000", "5", "0-0", "18446744073709551615", "3-2", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s, err := ParseSeeds(in)
		if err != nil {
			return
		}
		require.NoError(t, s.Validate())
		require.Positive(t, s.Len())
		text := s.String()
		if s.First == s.Last {
			text = strconv.FormatUint(s.First, 10) + "-" + text
		}
		if s.Unbounded() {
			text += strconv.FormatUint(s.Last, 10)
		}
		back, err := ParseSeeds(text)
		require.NoError(t, err, text)
		assert.Equal(t, s, back)
	})
}
