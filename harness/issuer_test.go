package harness

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/lease"
	"github.com/fencecheck/fencecheck/runstore"
	"github.com/fencecheck/fencecheck/targets/memory"
)

// localIssuer opens lease.Local for a run, as a real issuer would open
// its client: with the run's recorder, life and TTL. It counts its opens
// and closes.
type localIssuer struct {
	opened, closed int
	fail           error
}

func (i *localIssuer) Name() string { return "local-issuer" }

func (i *localIssuer) Open(_ context.Context, env lease.Env) (lease.Service, error) {
	if i.fail != nil {
		return nil, i.fail
	}
	i.opened++
	return closingService{lease.NewLocal(env.Life, env.Runtime, env.Recorder, env.TTL), i}, nil
}

type closingService struct {
	*lease.Local
	i *localIssuer
}

func (c closingService) Close() error { c.i.closed++; return nil }

// TestIssuerOpensWithTheRunsRecorder: a run with an Issuer opens it once
// with the run's recorder (its grants are in the history, so the run's
// coverage counts them), closes it once, and refuses a deterministic run
// or one that also gives Leases.
func TestIssuerOpensWithTheRunsRecorder(t *testing.T) {
	t.Parallel()
	tgt, err := memory.Open("fenced")
	require.NoError(t, err)
	iss := &localIssuer{}
	res, err := Run(context.Background(), testConfig(t, tgt, "memory://fenced", func(c *Config) {
		c.Runtime.Deterministic, c.Leases.Issuer, c.Workload.Duration = false, iss, time.Second
	}))
	require.NoError(t, err)
	assert.NotEqual(t, judge.Violated, res.Verdict, res.Reason) // held, or inconclusive on a starved machine
	assert.Equal(t, 1, iss.opened)
	assert.Equal(t, 1, iss.closed)
	history, err := os.ReadFile(filepath.Join(res.Dir, runstore.History))
	require.NoError(t, err)
	assert.Contains(t, string(history), `"actor":"lease","f":"acquire"`, "the issuer's grants are in the history")

	for name, set := range map[string]func(*Config){
		"deterministic": func(c *Config) { c.Leases.Issuer = &localIssuer{} },
		"both": func(c *Config) {
			c.Runtime.Deterministic, c.Leases.Issuer, c.Leases.Service = false, &localIssuer{}, &lease.Local{}
		},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Run(context.Background(), testConfig(t, tgt, "memory://fenced", set))
			var fe *FieldError
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, "Leases.Issuer", fe.Field)
		})
	}
	t.Run("open fails", func(t *testing.T) {
		_, err := Run(context.Background(), testConfig(t, tgt, "memory://fenced", func(c *Config) {
			c.Runtime.Deterministic, c.Leases.Issuer = false, &localIssuer{fail: errors.New("no quorum")}
		}))
		require.Error(t, err)
		assert.True(t, strings.Contains(err.Error(), "open lease issuer local-issuer: no quorum"), err.Error())
	})
}

// doublingIssuer opens lease.Local and records each of its grants a
// second time, as an issuer that hands one token to two workers would
// record them: to the same worker (even grants) or to another (odd).
type doublingIssuer struct{}

func (doublingIssuer) Name() string { return "doubling-issuer" }

func (doublingIssuer) Open(_ context.Context, env lease.Env) (lease.Service, error) {
	return doublingService{lease.NewLocal(env.Life, env.Runtime, env.Recorder, env.TTL), env.Recorder}, nil
}

type doublingService struct {
	*lease.Local
	rec *histories.Recorder
}

func (d doublingService) Acquire(ctx context.Context, resource string, worker int) (lease.Lease, error) {
	l, err := d.Local.Acquire(ctx, resource, worker)
	if err == nil {
		again := l
		again.Worker += int(l.Token % 2)
		lease.Record(d.rec, histories.FAcquire, again, "the same token again")
	}
	return l, err
}

// TestIssuerViolationDecidesTheVerdict: a run whose issuer grants a token
// twice is violated by the issuer gate whatever the receiver did, says
// so in its summary, and carries the findings in result.json.
func TestIssuerViolationDecidesTheVerdict(t *testing.T) {
	t.Parallel()
	tgt, err := memory.Open("fenced")
	require.NoError(t, err)
	res, err := Run(context.Background(), testConfig(t, tgt, "memory://fenced", func(c *Config) {
		c.Runtime.Deterministic, c.Leases.Issuer, c.Workload.Duration = false, doublingIssuer{}, time.Second
	}))
	require.NoError(t, err)
	assert.Equal(t, judge.Violated, res.Verdict)
	assert.Equal(t, judge.GateIssuer, res.Gate)
	assert.NotEqual(t, judge.Violated, res.Check.Verdict, "the receiver's own verdict")
	require.NotEmpty(t, res.Check.Issuer)
	assert.True(t, strings.HasPrefix(res.Reason, "the token issuer, not the receiver: the issuer handed token 1 on resource "), res.Reason)
	summary := res.Summary()
	assert.Contains(t, summary, "verdict     VIOLATED: the token issuer, not the receiver: ")
	assert.Contains(t, summary, "\nthe token issuer broke its invariant")
	raw, err := os.ReadFile(filepath.Join(res.Dir, runstore.Result))
	require.NoError(t, err)
	assert.Contains(t, string(raw), `"issuer_violations": [`)
	assert.Contains(t, string(raw), `"kind": "reused"`)
}
