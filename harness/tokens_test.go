package harness

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/lease"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/sched"
	"github.com/fencecheck/fencecheck/targets"
	"github.com/fencecheck/fencecheck/targets/memory"
)

// bigint is the correct receiver that declares a BIGINT's domain.
type bigint struct{ *memory.Fenced }

func (bigint) MaxToken() uint64 { return targets.MaxToken63 }

// TestSparseTokensStayInsideTheDomain: a sparse run on a correct receiver
// holds, its tokens cross the boundaries inside the receiver's domain, and
// none is above it; with the domain declared by the target or by the
// caller alike.
func TestSparseTokensStayInsideTheDomain(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		target   targets.Target
		declared uint64
		max      uint64
		crossed  string // the last boundary crossed
	}{
		{"undeclared", memory.NewFenced(), 0, math.MaxUint64, "2^53, 2^63"},
		{"the target's", bigint{memory.NewFenced()}, 0, math.MaxInt64, "2^53"},
		{"the caller's", memory.NewFenced(), math.MaxInt64, math.MaxInt64, "2^53"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := testConfig(t, tc.target, "memory://fenced", func(c *Config) {
				c.Leases.Tokens, c.Target.MaxToken, c.Workload.Resources = lease.Sparse(), tc.declared, 1
				c.Nemesis.Faults, c.Nemesis.Schedule = []nemesis.Fault{nemesis.NewPause(), nemesis.NewDelay()}, nemesis.Random{Interval: 300e6, Window: 400e6}
			})
			res, err := Run(context.Background(), cfg)
			require.NoError(t, err)
			assert.Equal(t, judge.Held, res.Verdict)
			assert.Equal(t, "sparse", res.Config.Tokens)
			assert.Equal(t, tc.max, res.Config.MaxToken)
			assert.Contains(t, res.Summary(), "sparse across 10, 100, 1000, 2^31, 2^32, "+tc.crossed+", none above "+targets.TokenName(tc.max))
			h, err := histories.Read(t.Context(), histories.Source{Path: filepath.Join(res.Dir, "history.jsonl")})
			require.NoError(t, err)
			var top uint64
			for _, op := range h.Expand(nil) {
				top = max(top, op.Token)
			}
			assert.LessOrEqual(t, top, tc.max)
			assert.Greater(t, top, uint64(1<<53), "the run got past 2^53")
		})
	}
}

// TestTokensNeedTheRunsOwnLeases: a lease service the caller gives keeps
// its own numbers; and from:N must leave room inside the domain.
func TestTokensNeedTheRunsOwnLeases(t *testing.T) {
	t.Parallel()
	given := lease.NewLocal(context.Background(), sched.NewReal(), nil, 1)
	for _, tc := range []struct {
		name string
		set  func(*Config)
		want string
	}{
		{"given leases", func(c *Config) { c.Leases.Tokens, c.Leases.Service = lease.Sparse(), given }, "Tokens: sparse needs the run's own lease service"},
		{"from near the end", func(c *Config) { c.Leases.Tokens, c.Target.MaxToken = lease.From(math.MaxInt64-10), math.MaxInt64 }, "leaves fewer than 1048576 tokens below the largest the receiver stores (2^63-1)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := testConfig(t, memory.NewFenced(), "memory://fenced", tc.set)
			err := cfg.Validate()
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	ok := testConfig(t, memory.NewFenced(), "memory://fenced", func(c *Config) { c.Leases.Tokens = lease.From(1000) })
	require.NoError(t, ok.Validate())
	res, err := Run(context.Background(), ok)
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(res.Dir, "history.jsonl"))
	require.NoError(t, err)
	assert.True(t, strings.Contains(string(b), `"token":1000,`), "from:1000 starts at 1000")
	assert.NotContains(t, string(b), `"token":999,`)
}
