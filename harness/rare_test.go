package harness

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/lease"
)

// TestRareDefectsAreFoundAndFencedHolds: each receiver with a rare defect
// is VIOLATED by a seed of the default run that exercises it (the first
// SeedsToDetection finds, from seed 1), with the explanation a reader
// needs; memory://fenced under the same configuration and seed holds.
func TestRareDefectsAreFoundAndFencedHolds(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		set  func(*Config)
		// explained are the words of the first violation's explanation.
		explained []string
	}{
		{"check-then-set-rare", nil, []string{"stale read: returned", "had been accepted before the read began"}},
		// A lost write shows as a stale read, or as its token accepted
		// again by the owner's repeat write: whichever the seed shows
		// first.
		{"lost-write-rare", nil, nil},
		{"uint32-tokens", func(c *Config) { c.Leases.Tokens = lease.Sparse() },
			// tokens either side of 2^32, wrapped to small numbers
			[]string{"wrong rejection: write with token 429496729", "the highest token that may have taken effect by then was 429496729"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d, err := SeedsToDetection(context.Background(), defaultRunFor(t, tc.name, tc.set), 1, 100)
			require.NoError(t, err)
			require.True(t, d.Found, "no seed of 100 found %s", tc.name)
			t.Logf("%s: found at seed %d: %s", tc.name, d.Seed, d.Result.Reason)
			for _, words := range tc.explained {
				assert.Contains(t, d.Result.Reason, words)
			}
			require.NotEmpty(t, d.Result.Check.Violations)
			assert.Positive(t, d.Result.Coverage.StaleWrites)

			fenced, err := defaultRunFor(t, "fenced", tc.set)(d.Seed)
			require.NoError(t, err)
			fenced.Runtime.Seed = d.Seed
			res, err := Run(context.Background(), fenced)
			require.NoError(t, err)
			assert.Equal(t, judge.Held, res.Verdict, "memory://fenced, seed %d: %s", d.Seed, res.Reason)
		})
	}
}

// TestUint32TokensHoldsBelow2To32: the defect shows only when tokens
// cross 2^32; with dense tokens the receiver is as correct as
// memory://fenced on every seed.
func TestUint32TokensHoldsBelow2To32(t *testing.T) {
	t.Parallel()
	d, err := SeedsToDetection(context.Background(), defaultRunFor(t, "uint32-tokens", nil), 1, 10)
	require.NoError(t, err)
	assert.False(t, d.Found, "seed %d: %s", d.Seed, d.Result.Reason)
	assert.Equal(t, judge.Held, d.Result.Verdict)
}
