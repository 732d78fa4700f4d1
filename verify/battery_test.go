package verify

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

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/logscan"
	"github.com/fencecheck/fencecheck/model"
	"github.com/fencecheck/fencecheck/runstore"
	"github.com/fencecheck/fencecheck/targets/memory"
)

// withLife is a memory receiver that keeps files in the run directory,
// has a log, and can fail on its own, as a receiver process does.
type withLife struct {
	*memory.Fenced
	dir       string
	err       error
	torn      bool
	logMarker string
}

func (w *withLife) UseRunDir(dir string)    { w.dir = dir }
func (w *withLife) Failed() <-chan struct{} { return nil }
func (w *withLife) Err() error              { return w.err }
func (w *withLife) Teardown(context.Context) error {
	w.torn = true
	return errors.New("a table was left behind")
}
func (w *withLife) ScanLog() (logscan.Report, error) {
	return logscan.Scan(strings.NewReader(w.logMarker), logscan.DefaultOptions())
}

// TestRunBatteryInARunDirectory: the battery records its history in the
// run directory, hands the directory to the target, tears it down with
// a warning for what it left, and reads its log as a row; a target that
// failed on its own gives an error naming where the history is.
func TestRunBatteryInARunDirectory(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		err    error
		log    string
		passed bool
	}{
		{"a clean log", nil, "listening\n", true},
		{"a panic in the log", nil, "panic: boom\n", false},
		{"the receiver exited", errors.New("the receiver exited on its own"), "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := schema.TempDir(t)
			tgt := &withLife{Fenced: memory.NewFenced(), err: tc.err, logMarker: tc.log}
			var warnings []string
			o := DefaultOptions()
			o.Policy, o.RunID = model.Strict, "t"
			rep, err := RunBattery(context.Background(), Battery{Target: tgt, Name: "memory://fenced", Dir: dir, Options: o,
				Warn: func(w string) { warnings = append(warnings, w) }})
			assert.Equal(t, dir, tgt.dir, "the target knew the run directory")
			assert.True(t, tgt.torn)
			assert.Equal(t, []string{"tear down memory://fenced: a table was left behind"}, warnings)
			h, rerr := histories.Read(t.Context(), histories.Source{Path: filepath.Join(dir, runstore.History)})
			require.NoError(t, rerr)
			assert.NotEmpty(t, h.Ops, "the history is in the run directory")
			if tc.err != nil {
				require.ErrorContains(t, err, "verify memory://fenced: the receiver exited on its own\n(the scenarios' history is in "+dir+")")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.passed, rep.Passed)
			require.NotNil(t, rep.ReceiverLog)
			assert.Equal(t, "receiver-log", rep.Outcomes[len(rep.Outcomes)-1].Scenario)
			require.NoError(t, WriteFiles(dir, rep))
			for _, f := range []string{runstore.Table, runstore.Result} {
				_, err := os.Stat(filepath.Join(dir, f))
				assert.NoError(t, err, f)
			}
		})
	}
}

// TestRunIssuerBatteryOnTheRunsOwnLeases: with no issuer, the battery
// plays against the run's own lease service and passes.
func TestRunIssuerBatteryOnTheRunsOwnLeases(t *testing.T) {
	t.Parallel()
	dir := schema.TempDir(t)
	o := DefaultIssuerOptions()
	o.TTL = 50 * time.Millisecond
	rep, err := RunIssuerBattery(context.Background(), nil, dir, o)
	require.NoError(t, err)
	assert.True(t, rep.Passed, "%+v", rep.Outcomes)
	assert.Equal(t, "issuer", rep.Battery)
	_, err = os.Stat(filepath.Join(dir, runstore.History))
	assert.NoError(t, err)
}
