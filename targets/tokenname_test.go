package targets

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTokenName(t *testing.T) {
	for _, c := range []struct {
		token uint64
		want  string
	}{
		{1, "1"}, {10, "10"}, {1000, "1000"}, {65535, "2^16-1"}, {1 << 31, "2^31"}, {1<<31 - 1, "2^31-1"},
		{1<<53 + 1, "2^53+1"}, {math.MaxInt64, "2^63-1"}, {1 << 63, "2^63"}, {math.MaxInt64 - 1, "2^63-2"},
		{math.MaxUint64, "2^64-1"}, {math.MaxUint64 - 1, "2^64-2"}, {123456789, "123456789"},
	} {
		t.Run(c.want, func(t *testing.T) {
			assert.Equal(t, c.want, TokenName(c.token))
		})
	}
}

func TestDomainName(t *testing.T) {
	assert.Equal(t, "1 … 2^63-1 (9223372036854775807)", DomainName(math.MaxInt64))
	assert.Equal(t, "1 … 1000", DomainName(1000))
}

type domained struct {
	Target
	max uint64
}

func (d domained) MaxToken() uint64 { return d.max }

func TestDomain(t *testing.T) {
	for _, c := range []struct {
		name     string
		t        Target
		declared uint64
		want     uint64
	}{
		{"nothing declared", nil, 0, math.MaxUint64},
		{"the user's", nil, 1000, 1000},
		{"the target's", domained{max: math.MaxInt64}, 0, math.MaxInt64},
		{"the smaller: the user's", domained{max: math.MaxInt64}, 1 << 31, 1 << 31},
		{"the smaller: the target's", domained{max: math.MaxInt64}, math.MaxUint64, math.MaxInt64},
	} {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, Domain(c.t, c.declared))
		})
	}
}
