package verify

import (
	"bytes"
	"context"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/check"
	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/lease"
	"github.com/fencecheck/fencecheck/model"
	"github.com/fencecheck/fencecheck/sched"
	"github.com/fencecheck/fencecheck/targets/memory"
)

// startedAt is a lease service whose tokens start at a given token on
// every resource, so that the issuer's tokens are not the scripted ones.
type startedAt struct {
	*lease.Local
	from uint64
	mu   sync.Mutex
	seen map[string]bool
}

func (s *startedAt) Acquire(ctx context.Context, resource string, worker int) (lease.Lease, error) {
	s.mu.Lock()
	if !s.seen[resource] {
		s.seen[resource] = true
		s.Local.StartAbove(resource, s.from)
	}
	s.mu.Unlock()
	return s.Local.Acquire(ctx, resource, worker)
}

// issuerBattery runs the battery against the memory receiver name with
// tokens from a lease service whose tokens start above 1000, and returns
// its rows and its history.
func issuerBattery(t *testing.T, name string, o Options) ([]Row, *histories.History) {
	t.Helper()
	tgt, err := memory.Open(name)
	require.NoError(t, err)
	pr, pw := io.Pipe()
	rt := sched.NewReal()
	rec := histories.NewRecorder(pw, histories.RecorderOptions{Clock: rt})
	read := make(chan *histories.History)
	go func() {
		var written bytes.Buffer // the history as verify writes it into its run directory
		h, err := histories.Read(t.Context(), histories.Source{Path: "verify", Reader: io.TeeReader(pr, &written)})
		assert.NoError(t, err)
		assert.NoError(t, schema.ValidateHistory(&written, "verify"))
		read <- h
	}()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o.Recorder = rec
	o.Leases = &startedAt{Local: lease.NewLocal(ctx, rt, rec, time.Hour), from: 1000, seen: map[string]bool{}}
	rows, err := Run(ctx, tgt, o)
	require.NoError(t, err)
	requireValidReport(t, Report{Target: "test", Leases: "local", Policy: o.Policy.String(), MaxToken: o.MaxToken, Passed: Passed(rows), Outcomes: rows})
	require.NoError(t, rec.Close())
	require.NoError(t, pw.Close())
	return rows, <-read
}

// TestScenariosTakeTheIssuersTokens: with a lease service, every scenario
// but digit-boundaries writes the tokens the issuer granted (above 1000
// here, never the scripted 41 and 42), each write's token was granted on
// its resource, the rows name those tokens, and the verdicts are those of
// the scripted battery: the correct receiver passes, the unfenced one
// fails the article's timeline.
func TestScenariosTakeTheIssuersTokens(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		target string
		want   map[string]Result
	}{
		{"fenced", map[string]Result{"stale-after-newer": Pass, "equal-token-repeat": Pass, "old-token-first": Info,
			"check-then-set-race": Pass, "two-first-writers": Pass, "scope": Pass}},
		{"unfenced", map[string]Result{"stale-after-newer": Fail, "equal-token-repeat": Fail}},
		{"check-then-set", map[string]Result{"stale-after-newer": Pass, "check-then-set-race": Fail, "two-first-writers": Fail}},
	} {
		t.Run(tc.target, func(t *testing.T) {
			t.Parallel()
			rows, h := issuerBattery(t, tc.target, options(model.Strict, false))
			got := map[string]Row{}
			for _, r := range rows {
				got[r.Scenario] = r
			}
			for name, want := range tc.want {
				assert.Equal(t, want, got[name].Result, "%s: %s", name, got[name].Observed)
			}
			assert.Contains(t, got["stale-after-newer"].Expected, "1002 accepted, 1001 rejected")
			granted := map[string]map[uint64]bool{}
			for _, e := range h.Others {
				if e.Actor == histories.ActorLease && e.F == histories.FAcquire {
					if granted[e.Resource] == nil {
						granted[e.Resource] = map[uint64]bool{}
					}
					granted[e.Resource][e.Token] = true
				}
			}
			writes := 0
			for _, op := range h.Expand(nil) {
				if !op.IsWrite() || granted[op.Resource] == nil {
					continue // digit-boundaries: scripted
				}
				writes++
				assert.Greater(t, op.Token, uint64(1000))
				assert.True(t, granted[op.Resource][op.Token], "write of %d on %s carries a granted token", op.Token, op.Resource)
			}
			assert.Greater(t, writes, 10)
			assert.Empty(t, check.CheckIssuer(h.Others), "the grants' tokens increase per resource")
		})
	}
}

// decreasing grants ever lower tokens: an issuer broken on purpose.
type decreasing struct {
	mu   sync.Mutex
	next uint64
}

func (d *decreasing) Acquire(context.Context, string, int) (lease.Lease, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.next--
	return lease.Lease{Token: d.next}, nil
}
func (d *decreasing) Release(lease.Lease)             {}
func (d *decreasing) Expire(string) bool              { return true }
func (d *decreasing) ExpireToken(string, uint64) bool { return true }

var _ lease.Service = (*decreasing)(nil)

// TestAnIssuerWhoseTokensDoNotIncreaseAborts: the battery stops at the
// first scenario whose owners' tokens do not increase, returns the rows
// played until then and an error that blames the issuer, not the
// receiver.
func TestAnIssuerWhoseTokensDoNotIncreaseAborts(t *testing.T) {
	t.Parallel()
	o := options(model.Strict, false)
	o.Leases = &decreasing{next: 100}
	rows, err := Run(context.Background(), memory.NewFenced(), o)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "scenario stale-after-newer: the lease issuer granted token 98 on verify-t-stale-after-newer-1 after token 99: its tokens do not increase")
	assert.Empty(t, rows)
}
