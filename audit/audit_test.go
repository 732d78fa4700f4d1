package audit

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/harness"
	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/lease"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/targets"
	"github.com/fencecheck/fencecheck/targets/memory"
)

// testIssuer is an issuer the audit treats as the user's: fencecheck's
// counter, opened as a real issuer is.
type testIssuer struct{}

func (testIssuer) Open(_ context.Context, env lease.Env) (lease.Service, error) {
	return lease.NewLocal(env.Life, env.Runtime, env.Recorder, env.TTL), nil
}
func (testIssuer) Name() string        { return "a test issuer" }
func (testIssuer) TokenSource() string { return "a counter per resource" }

// memoryAudit audits the memory receiver name: its battery on a fresh
// receiver, its runs in the deterministic simulation (a seed, a history).
func memoryAudit(t *testing.T, name string, issuer lease.Issuer) Options {
	o := DefaultOptions()
	o.Name, o.Issuer, o.Seeds, o.Budget, o.Store = "memory://"+name, issuer, 3, 0, schema.TempDir(t)
	o.Receiver = func(context.Context) (targets.Target, func() error, error) {
		tgt, err := memory.Open(name)
		return tgt, func() error { return nil }, err
	}
	faults, err := nemesis.Parse("pause,delay")
	require.NoError(t, err)
	o.Run = func(ctx context.Context, r RunSpec) (harness.Result, error) {
		tgt, err := memory.Open(name)
		if err != nil {
			return harness.Result{}, err
		}
		cfg := harness.DefaultConfig()
		cfg.Target.Receiver, cfg.Target.Name, cfg.Nemesis.Faults = tgt, o.Name, faults
		cfg.Runtime.Seed, cfg.Runtime.Deterministic, cfg.Workload.Strategy = r.Seed, true, r.Strategy
		cfg.Store.Dir, cfg.Store.RunName, cfg.Store.Keep = r.Store, r.Name, r.Keep
		return harness.Run(ctx, cfg)
	}
	return o
}

// results are the steps' results, in order.
func results(r Report) []string {
	var out []string
	for _, s := range r.Steps {
		out = append(out, s.Result)
	}
	return out
}

// TestAuditVerdicts: the audit's verdict is the judge's over its steps.
// A fenced receiver with the user's issuer passes, every judging step
// holding; an unfenced one fails in its battery and its runs; the same
// fenced receiver with fencecheck's own issuer is no pass, since the
// issuer the user would adopt was not tested.
func TestAuditVerdicts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		receiver string
		issuer   lease.Issuer
		verdict  judge.Verdict
		results  []string
		reason   string
	}{
		{"fenced, the user's issuer", "fenced", testIssuer{}, judge.Held,
			[]string{"info", "held", "held", "held", "info", "info"}, "every step held on evidence"},
		{"unfenced", "unfenced", testIssuer{}, judge.Violated,
			[]string{"info", "held", "violated", "violated", "info", "info"}, "a violation in step 3 (the enforcement point)"},
		{"fenced, fencecheck's own issuer", "fenced", nil, judge.Inconclusive,
			[]string{"not tested", "held", "held", "held", "info", "info"}, "audit with the issuer you will use to test it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := memoryAudit(t, tc.receiver, tc.issuer)
			rep, err := Run(context.Background(), o)
			require.NoError(t, err)
			assert.Equal(t, tc.verdict, rep.Verdict, rep.Reason)
			assert.Equal(t, tc.results, results(rep))
			assert.Contains(t, rep.Reason, tc.reason)
			for _, s := range rep.Steps {
				assert.NotEmpty(t, s.Evidence, "step %d says what it saw", s.Number)
				for _, run := range s.Runs {
					assert.DirExists(t, filepath.Join(rep.Dir, run), "step %d links a run that is there", s.Number)
				}
			}

			// audit.json is what Run returned, and the store's latest.
			data, err := os.ReadFile(filepath.Join(o.Store, "latest", JSONFile))
			require.NoError(t, err)
			var stored Report
			require.NoError(t, json.Unmarshal(data, &stored))
			assert.Equal(t, rep.Verdict, stored.Verdict)
			assert.Equal(t, results(rep), results(stored))
			var text strings.Builder
			require.NoError(t, rep.WriteText(&text))
			assert.Contains(t, text.String(), "verdict     "+strings.ToUpper(string(tc.verdict))+": ")
		})
	}
}

// TestAuditOptionsAreChecked: options the audit cannot run with are
// named, each, before any step.
func TestAuditOptionsAreChecked(t *testing.T) {
	t.Parallel()
	o := DefaultOptions()
	o.Seeds, o.Parallel, o.Budget, o.Store = 0, 0, -time.Second, ""
	_, err := Run(context.Background(), o)
	for _, want := range []string{"Receiver is required", "Run is required", "Seeds must be at least 1",
		"Parallel must be at least 1", "Budget must not be negative", "Store is required"} {
		assert.ErrorContains(t, err, want)
	}
}
