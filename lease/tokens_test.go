package lease

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sequence is the first n tokens of t in a domain ending at maxToken,
// fewer if it runs out.
func sequence(t Tokens, maxToken uint64, n int) []uint64 {
	var out []uint64
	last := uint64(0)
	for range n {
		next, ok := t.Next(last, maxToken)
		if !ok {
			break
		}
		out = append(out, next)
		last = next
	}
	return out
}

func TestTokensSequences(t *testing.T) {
	for _, c := range []struct {
		name    string
		tokens  string
		max     uint64
		n       int
		want    []uint64 // the first tokens
		crossed []uint64
	}{
		{"dense", "dense", math.MaxUint64, 3, []uint64{1, 2, 3}, nil},
		{"dense runs out", "dense", 2, 3, []uint64{1, 2}, nil},
		{"from", "from:1000", math.MaxUint64, 3, []uint64{1000, 1001, 1002}, nil},
		{"from the domain's end", "from:9223372036854775806", math.MaxInt64, 3, []uint64{math.MaxInt64 - 1, math.MaxInt64}, nil},
		{"sparse in 2^64-1", "sparse", math.MaxUint64, 14, []uint64{1, 2, 3, 7, 8, 9, 10, 11, 12, 97, 98, 99, 100, 101}, []uint64{10, 100, 1000, 1 << 31, 1 << 32, 1 << 53, 1 << 63}},
		{"sparse in a BIGINT", "sparse", math.MaxInt64, 0, nil, []uint64{10, 100, 1000, 1 << 31, 1 << 32, 1 << 53}},
		{"sparse in an int32", "sparse", math.MaxInt32, 0, nil, []uint64{10, 100, 1000}},
		{"sparse in 1000", "sparse", 1000, 0, nil, []uint64{10, 100}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tok, err := ParseTokens(c.tokens)
			require.NoError(t, err)
			assert.Equal(t, c.tokens, tok.String())
			if c.want != nil {
				assert.Equal(t, c.want, sequence(tok, c.max, c.n))
			}
			assert.Equal(t, c.crossed, tok.Crossed(c.max))
		})
	}
}

// TestSparseCrossesEachBoundary: a sparse sequence is strictly increasing,
// starts dense, grants SparseStretch/2 tokens on each side of every
// boundary inside the domain, and then counts up.
func TestSparseCrossesEachBoundary(t *testing.T) {
	for _, maxToken := range []uint64{math.MaxUint64, math.MaxInt64, 1<<32 + 1000} {
		seq := sequence(Sparse(), maxToken, 200)
		require.Len(t, seq, 200)
		for i := 1; i < len(seq); i++ {
			require.Greater(t, seq[i], seq[i-1])
		}
		assert.Equal(t, uint64(SparseStretch/2), seq[SparseStretch/2-1])
		for _, b := range Sparse().Crossed(maxToken) {
			assert.Contains(t, seq, b-SparseStretch/2)
			assert.Contains(t, seq, b-1)
			assert.Contains(t, seq, b)
			assert.Contains(t, seq, b+SparseStretch/2-1)
		}
		last := Sparse().Crossed(maxToken)
		top := last[len(last)-1]
		grantsBefore := SparseStretch/2 + SparseStretch*len(last) // the start and every stretch
		assert.Equal(t, top+SparseStretch/2-1+uint64(200-grantsBefore), seq[199], "counts up after the last boundary")
	}
	// Prior state: a resource already at 5000 jumps to the next stretch.
	next, ok := Sparse().Next(5000, math.MaxUint64)
	require.True(t, ok)
	assert.Equal(t, uint64(1<<31-SparseStretch/2), next)
}

func TestParseTokensRejects(t *testing.T) {
	for _, s := range []string{"", "Dense", "from:", "from:0", "from:-1", "from:x", "from:18446744073709551616", "sparse:1"} {
		t.Run(s, func(t *testing.T) {
			_, err := ParseTokens(s)
			assert.Error(t, err)
		})
	}
}

func FuzzParseTokens(f *testing.F) {
	for _, s := range []string{"dense", "sparse", "from:1", "from:18446744073709551615", "from:0", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tok, err := ParseTokens(s)
		if err != nil {
			return
		}
		again, err := ParseTokens(tok.String())
		require.NoError(t, err)
		require.Equal(t, tok, again)
		if next, ok := tok.Next(0, math.MaxUint64); ok {
			require.Positive(t, next)
		}
	})
}
