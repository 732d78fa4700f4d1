package harness

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/logscan"
	"github.com/fencecheck/fencecheck/runstore"
	"github.com/fencecheck/fencecheck/targets"
	"github.com/fencecheck/fencecheck/targets/memory"
)

// loggedTarget is a receiver with a log, as a process.Target has: its
// scan is the log's text.
type loggedTarget struct {
	targets.Target
	log     string
	readErr error
}

func (l *loggedTarget) ScanLog() (logscan.Report, error) {
	rep, err := logscan.Scan(strings.NewReader(l.log), logscan.DefaultOptions())
	rep.File = "/run/receiver.log"
	if l.readErr != nil {
		return rep, l.readErr
	}
	return rep, err
}

// TestReceiverLogDecides: a finding in the receiver's log (a crash that
// ended it, a data race) is a violation of its own, and a warning (a
// traceback it lived through) is counted and quoted without failing, quoted in the summary, result.json, JUnit and the
// report, whatever the history shows; a log that could not be read makes
// a run that would have held inconclusive; a clean log changes nothing.
func TestReceiverLogDecides(t *testing.T) {
	t.Parallel()
	race := "listening\n==================\nWARNING: DATA RACE\nWrite at 0x1 by goroutine 8:\n  main.touch()\n"
	cases := []struct {
		name    string
		target  string
		log     string
		readErr error
		verdict judge.Verdict
		gate    judge.Gate
		summary []string
	}{
		{"clean log", "fenced", "listening\nserved\n", nil, judge.Held, judge.GateCheck,
			[]string{"receiver    receiver.log: searched 2 lines for Go, Python, Java, Node and Rust crash signatures: none found"}},
		{"a data race", "fenced", race, nil, judge.Violated, judge.GateReceiverLog,
			[]string{"receiver    receiver.log: searched 5 lines for Go, Python, Java, Node and Rust crash signatures: 1 Go data race (finding), first at line 3: WARNING: DATA RACE",
				"verdict     VIOLATED: the receiver's log (receiver.log) shows 1 Go data race (finding), first at line 3: WARNING: DATA RACE",
				"the receiver's log (/run/receiver.log):\n  Go data race at line 3:\n         1 | listening\n         2 | ==================\n         3 | WARNING: DATA RACE\n         4 | Write at 0x1 by goroutine 8:"}},
		{"a data race and a fencing violation", "unfenced", race, nil, judge.Violated, judge.GateCheck,
			[]string{"receiver    receiver.log: searched 5 lines for Go, Python, Java, Node and Rust crash signatures: 1 Go data race (finding)", "the receiver's log (/run/receiver.log):"}},
		{"tracebacks the receiver lived through are warnings", "fenced", strings.Repeat("Traceback (most recent call last):\n  File \"recv.py\", line 9, in do_GET\nKeyError: 'r1'\n", 3),
			nil, judge.Held, judge.GateCheck,
			[]string{"receiver    receiver.log: searched 9 lines for Go, Python, Java, Node and Rust crash signatures: 3 Python tracebacks (warning), first at line 1: Traceback (most recent call last): … KeyError: 'r1'",
				"the receiver's log (/run/receiver.log):\n  Python traceback at line 1:"}},
		{"an unreadable log", "fenced", "", errors.New("read the receiver's log: permission denied"), judge.Inconclusive, judge.GateReceiverLog,
			[]string{"receiver    receiver.log not read to its end (read the receiver's log: permission denied)",
				"verdict     INCONCLUSIVE: the receiver's log could not be read to its end"}},
		{"a panic before the log could not be read further", "fenced", "panic: boom\n", errors.New("i/o error"), judge.Violated, judge.GateReceiverLog,
			[]string{"1 Go panic (finding), first at line 1: panic: boom"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mem, err := memory.Open(tc.target)
			require.NoError(t, err)
			tgt := &loggedTarget{Target: mem, log: tc.log, readErr: tc.readErr}
			res, err := Run(context.Background(), testConfig(t, tgt, "memory://"+tc.target, func(c *Config) { c.Runtime.Seed = 1 }))
			require.NoError(t, err)
			assert.Equal(t, tc.verdict, res.Verdict, res.Reason)
			assert.Equal(t, tc.gate, res.Gate)
			summary := res.Summary()
			for _, want := range tc.summary {
				assert.Contains(t, summary, want)
			}

			data, err := os.ReadFile(filepath.Join(res.Dir, runstore.Result))
			require.NoError(t, err)
			var back struct {
				Verdict     judge.Verdict    `json:"verdict"`
				ReceiverLog *logscan.Outcome `json:"receiver_log"`
			}
			require.NoError(t, json.Unmarshal(data, &back))
			assert.Equal(t, tc.verdict, back.Verdict)
			require.NotNil(t, back.ReceiverLog)
			assert.Equal(t, res.ReceiverLog.Hits, back.ReceiverLog.Hits)
			assert.Equal(t, res.ReceiverLog.Error, back.ReceiverLog.Error)

			var junit *struct{ failed, errored bool }
			for _, c := range res.JUnit().Cases {
				if c.Classname == "receiver-log" {
					junit = &struct{ failed, errored bool }{c.Failure != nil, c.Error != nil}
					if c.Failure != nil {
						assert.Contains(t, c.Failure.Text, " | ", "the lines are quoted")
					}
				}
			}
			require.NotNil(t, junit, "the receiver's log is a test case of its own")
			assert.Equal(t, res.ReceiverLog.Failed(), junit.failed)
			assert.Equal(t, !res.ReceiverLog.Failed() && tc.readErr != nil, junit.errored)

			page, err := os.ReadFile(filepath.Join(res.Dir, runstore.Report))
			require.NoError(t, err)
			if res.ReceiverLog.Found() {
				assert.Contains(t, string(page), "The receiver&#39;s log (receiver.log) shows")
			}
			if tc.readErr == nil {
				assert.Contains(t, string(page), "receiver.log: searched ", "the report names what was searched")
			}
		})
	}
}

// TestNoReceiverLogWithoutOne: a target without a log gets no log line,
// no test case, and no field in result.json.
func TestNoReceiverLogWithoutOne(t *testing.T) {
	t.Parallel()
	res := defaultRun(t, "fenced", 1)
	assert.Nil(t, res.ReceiverLog)
	assert.NotContains(t, res.Summary(), "receiver    ")
	for _, c := range res.JUnit().Cases {
		assert.NotEqual(t, "receiver-log", c.Classname)
	}
	data, err := os.ReadFile(filepath.Join(res.Dir, runstore.Result))
	require.NoError(t, err)
	assert.NotContains(t, string(data), "receiver_log")
}
