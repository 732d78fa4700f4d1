package procfs

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseStat(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		want Stat
		err  bool
	}{
		{"123 (sleep) S 1 120 120 0 -1", Stat{State: 'S', PPID: 1, PGRP: 120}, false},
		{"7 (a b) (c)) Z 1 9 9", Stat{State: 'Z', PPID: 1, PGRP: 9}, false},
		{"7 (x) R one 2", Stat{}, true},
		{"7 (x) R", Stat{}, true},
		{"7 x R 1 2", Stat{}, true},
		{"7 (x) RR 1 2", Stat{}, true},
		{"7 (x) R 1 two", Stat{}, true},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			got, err := parseStat([]byte(tc.in))
			if tc.err {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func FuzzParseStat(f *testing.F) {
	f.Add([]byte("123 (sleep) S 1 120 120 0 -1"))
	f.Add([]byte("7 (a b) (c)) Z 1 9 9"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := parseStat(data)
		if err == nil && s.State == 0 {
			t.Fatalf("no state from %q", data)
		}
	})
}
