package redistarget

import (
	"context"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
)

// FuzzAtomicOrder: the atomic script orders any two tokens as uint64s,
// on the real server: after a, b is accepted exactly when it is above a,
// and the larger is what is read back. The seeds are the boundaries
// where doubles, strings and signed integers go wrong.
func FuzzAtomicOrder(f *testing.F) {
	for _, p := range boundaries {
		f.Add(p[0], p[1])
		f.Add(p[1], p[0])
	}
	f.Add(uint64(0), uint64(0))
	f.Add(uint64(123456789012345678), uint64(123456789012345679))
	tgt := open(f, modeOptions(ModeAtomic))
	n := 0
	f.Fuzz(func(t *testing.T, a, b uint64) {
		ctx := context.Background()
		n++
		r := "r" + strconv.Itoa(n)
		out, err := tgt.Write(ctx, r, a, "a")
		require.NoError(t, err)
		require.Equal(t, histories.Accepted, out)
		out, err = tgt.Write(ctx, r, b, "b")
		require.NoError(t, err)
		want, value, token := histories.Rejected, "a", a
		if b > a {
			want, value, token = histories.Accepted, "b", b
		}
		assert.Equal(t, want, out, "%d after %d", b, a)
		got, err := tgt.Read(ctx, r)
		require.NoError(t, err)
		assert.Equal(t, value, got.Value)
		assert.Equal(t, token, got.Token)
	})
}

// FuzzReading: the reply parser never panics, and a value and token it
// returns are the ones the reply held.
func FuzzReading(f *testing.F) {
	f.Add("v", "42", int64(0), 0)
	f.Add("v", "18446744073709551615", int64(0), 0)
	f.Add("v", "18446744073709551616", int64(0), 0)
	f.Add("v", "-1", int64(0), 0)
	f.Add("v", "", int64(7), 1)
	f.Add("v", "", int64(-7), 1)
	f.Add("", "", int64(0), 2)
	f.Add("v", "", int64(0), 3)
	f.Fuzz(func(t *testing.T, value, tok string, itok int64, shape int) {
		vals := []any{value, tok}
		switch shape % 4 {
		case 1:
			vals[1] = itok
		case 2:
			vals[0] = nil
		case 3:
			vals[1] = nil
		}
		r, err := reading(vals)
		if err != nil || !r.Found {
			return
		}
		assert.Equal(t, value, r.Value)
		assert.Equal(t, vals[1] != nil, r.HasToken)
		switch v := vals[1].(type) {
		case string:
			// Leading zeros are read as the number they write.
			n, err := strconv.ParseUint(v, 10, 64)
			assert.NoError(t, err)
			assert.Equal(t, n, r.Token)
		case int64:
			assert.Equal(t, v, int64(r.Token))
		}
	})
}
