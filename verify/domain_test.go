package verify

import (
	"context"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/model"
	"github.com/fencecheck/fencecheck/targets"
	"github.com/fencecheck/fencecheck/targets/memory"
)

// bigintTarget stores tokens as a BIGINT column does: a token above
// 2^63-1 fails, as the driver refuses it. It declares no domain: only
// the user's --max-token can (declared does).
type bigintTarget struct {
	*memory.Fenced
	mu   sync.Mutex
	sent []uint64
}

func (b *bigintTarget) Write(ctx context.Context, resource string, token uint64, value string) (histories.Outcome, error) {
	b.mu.Lock()
	b.sent = append(b.sent, token)
	b.mu.Unlock()
	if token > math.MaxInt64 {
		return 0, targets.ErrDefinitelyNotApplied
	}
	return b.Fenced.Write(ctx, resource, token, value)
}

// declared is a bigintTarget that says its domain (targets.TokenDomain).
type declared struct{ *bigintTarget }

func (declared) MaxToken() uint64 { return math.MaxInt64 }

// TestDigitBoundariesInsideTheDomain: a receiver that stores 2^63-1 at
// most passes digit-boundaries when its domain is declared, by the
// target or by the user, is tested up to 2^63-1, and is never sent a
// token above it; undeclared, it fails.
func TestDigitBoundariesInsideTheDomain(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		target func(*bigintTarget) targets.Target
		max    uint64
		want   Result
	}{
		{"declared by the target", func(b *bigintTarget) targets.Target { return declared{b} }, 0, Pass},
		{"declared by the user", func(b *bigintTarget) targets.Target { return b }, math.MaxInt64, Pass},
		{"the smaller of the two", func(b *bigintTarget) targets.Target { return declared{b} }, math.MaxUint64, Pass},
		{"undeclared", func(b *bigintTarget) targets.Target { return b }, 0, Fail},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			b := &bigintTarget{Fenced: memory.NewFenced()}
			o := options(model.Strict, false)
			o.MaxToken = c.max
			var row Row
			for _, r := range battery(t, c.target(b), o) {
				if r.Scenario == "digit-boundaries" {
					row = r
				}
			}
			t.Logf("%s | %s | %s", row.Expected, row.Observed, row.Result)
			require.Equal(t, c.want, row.Result)
			if c.want == Fail {
				return
			}
			assert.Contains(t, row.Expected, "2^53→2^53+1, 2^63-2→2^63-1:")
			assert.Contains(t, row.Observed, "not sent, above the receiver's largest token 2^63-1: 2^63-1→2^63, 2^64-2→2^64-1")
			assert.Contains(t, b.sent, uint64(math.MaxInt64))
			for _, tok := range b.sent {
				assert.LessOrEqual(t, tok, uint64(math.MaxInt64))
			}
		})
	}
}

func TestDomainPairs(t *testing.T) {
	for _, c := range []struct {
		max             uint64
		inside, outside string
	}{
		{math.MaxUint64, "9→10, 99→100, 999→1000, 2^31-1→2^31, 2^32-1→2^32, 2^53→2^53+1, 2^63-1→2^63, 2^64-2→2^64-1", ""},
		{math.MaxInt64, "9→10, 99→100, 999→1000, 2^31-1→2^31, 2^32-1→2^32, 2^53→2^53+1, 2^63-2→2^63-1", "2^63-1→2^63, 2^64-2→2^64-1"},
		{1<<31 - 1, "9→10, 99→100, 999→1000, 2^31-2→2^31-1", "2^31-1→2^31, 2^32-1→2^32, 2^53→2^53+1, 2^63-1→2^63, 2^64-2→2^64-1"},
		{1000, "9→10, 99→100, 999→1000", "2^31-1→2^31, 2^32-1→2^32, 2^53→2^53+1, 2^63-1→2^63, 2^64-2→2^64-1"},
	} {
		t.Run(targets.TokenName(c.max), func(t *testing.T) {
			in, out := domainPairs(c.max)
			assert.Equal(t, c.inside, pairNames(in))
			assert.Equal(t, c.outside, pairNames(out))
		})
	}
}

// TestTokensAboveTheDomainAreAnError: a token issuer's grant above the
// domain is never sent; the battery stops with an error, not a failed row.
func TestTokensAboveTheDomainAreAnError(t *testing.T) {
	t.Parallel()
	b := &bigintTarget{Fenced: memory.NewFenced()}
	o := options(model.Strict, false)
	o.MaxToken = MinMaxToken - 1
	_, err := Run(context.Background(), b, o)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "go up to 1000")

	s := &script{t: b, o: options(model.Strict, false), scenario: "x", procs: new(atomic.Int64)}
	s.o.MaxToken = 1000
	a := s.write(context.Background(), "r", 1001, "v")
	require.ErrorIs(t, a.err, targets.ErrOutsideDomain)
	require.ErrorIs(t, s.err, targets.ErrOutsideDomain)
	assert.Empty(t, b.sent)
	assert.True(t, strings.HasPrefix(s.err.Error(), "scenario x:"))
}
