package fencetest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/audit"
	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/lease"
	"github.com/fencecheck/fencecheck/targets"
	"github.com/fencecheck/fencecheck/targets/httptarget/receiver"
	"github.com/fencecheck/fencecheck/targets/memory"
)

// counterIssuer is a service's own issuer in a test: fencecheck's counter,
// opened as a real issuer is, on the real clock.
type counterIssuer struct{}

func (counterIssuer) Open(_ context.Context, env lease.Env) (lease.Service, error) {
	return lease.NewLocal(env.Life, env.Runtime, env.Recorder, env.TTL), nil
}
func (counterIssuer) Name() string { return "the service's counter" }

// TestAuditFromGoTest: a service audits its receiver and its issuer from
// its own go test. A fenced receiver passes; an unfenced one fails the
// test naming the enforcement point; with fencecheck's own issuer the
// audit fails the test too, since the service's issuer was not tested.
func TestAuditFromGoTest(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		receiver string
		issuer   lease.Issuer
		verdict  judge.Verdict
		fails    string
	}{
		{"a fenced receiver and the service's issuer pass", "fenced", counterIssuer{}, judge.Held, ""},
		{"an unfenced receiver fails", "unfenced", counterIssuer{}, judge.Violated, "a violation in step 3 (the enforcement point)"},
		{"fencecheck's own issuer is no pass", "fenced", nil, judge.Inconclusive, "audit with the issuer you will use to test it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := &recorder{TB: t}
			newTarget := func() (targets.Target, error) { return memory.Open(tc.receiver) }
			tgt, err := newTarget()
			require.NoError(t, err)
			cfg := Config(t, tgt)
			cfg.Store.Dir, cfg.Leases.Issuer, cfg.Runtime.Deterministic = schema.TempDir(t), tc.issuer, tc.issuer == nil
			cfg.Workload.Duration = 2 * time.Second
			o := audit.DefaultOptions()
			o.Seeds = 2
			rep := Audit(rec, newTarget, cfg, o)
			assert.Equal(t, tc.verdict, rep.Verdict, rep.Reason)
			assert.False(t, rec.fatal)
			if tc.fails == "" {
				assert.Empty(t, rec.errors)
				assert.Contains(t, rec.logs[len(rec.logs)-1], "audit.html")
				return
			}
			require.Len(t, rec.errors, 1)
			assert.Contains(t, rec.errors[0], tc.fails)
		})
	}
}

// TestAuditAHandlerOnVirtualTime: a service audits its in-process
// http.Handler with every run in a synctest bubble, on virtual time. The
// reference receiver passes every step that judges (the issuer, fencecheck's
// own, is not tested: no pass); its check-then-set bug fails the audit.
func TestAuditAHandlerOnVirtualTime(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		bug     receiver.Bug
		verdict judge.Verdict
		results []string
	}{
		{"correct, fencecheck's issuer", receiver.NoBug, judge.Inconclusive, []string{"not tested", "held", "held", "held", "info", "info"}},
		{"check-then-set", receiver.CheckThenSet, judge.Violated, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := &recorder{TB: t}
			newTarget := func() (targets.Target, error) {
				ro := receiver.DefaultOptions()
				ro.Bug = tc.bug
				h, err := receiver.NewHandler(receiver.NewMemory(), ro)
				if err != nil {
					return nil, err
				}
				return HandlerTarget(h, DefaultOptions())
			}
			tgt, err := newTarget()
			require.NoError(t, err)
			cfg := Config(t, tgt)
			cfg.Store.Dir, cfg.Runtime.VirtualClock, cfg.Workload.Duration = schema.TempDir(t), true, 3*time.Second
			o := audit.DefaultOptions()
			o.Seeds = 2
			rep := Audit(rec, newTarget, cfg, o)
			require.False(t, rec.fatal, "%v", rec.errors)
			assert.Equal(t, tc.verdict, rep.Verdict, rep.Reason)
			if tc.results != nil {
				var got []string
				for _, s := range rep.Steps {
					got = append(got, s.Result)
				}
				assert.Equal(t, tc.results, got)
			}
			if tc.verdict != judge.Violated {
				assert.Contains(t, rep.Steps[audit.StepPausedWorker-1].Evidence[0], "2 runs: 2 held", "both seeds ran")
			}
		})
	}
}
