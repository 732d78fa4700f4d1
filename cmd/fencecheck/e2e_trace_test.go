package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
)

// TestACounterexamplesRequestsAreInTheReceiversLog: a user finds each
// request of a counterexample in the receiver's own log by its trace id
// (docs/reports.md), end to end: run finds the reference receiver's check-then-set bug
// through --exec, and every operation of the counterexample it prints
// (the summary, result.json) is found by its trace id in the receiver's
// request log in the run directory (receiver.log), on the resource the
// counterexample names, and on exactly one invocation of history.jsonl.
func TestACounterexamplesRequestsAreInTheReceiversLog(t *testing.T) {
	t.Parallel()
	dir, addr := schema.TempDir(t), freeAddr(t)
	recv := fmt.Sprintf("%s receiver --listen %s --bug check-then-set --window 250ms", fencecheckBinary, addr)
	// pause and delay act from the start (see runShards), and the
	// window keeps a stale write inside it on a loaded machine too.
	r := fencecheck(t, dir, "run", "--target", "http://"+addr, "--exec", recv, "--ops", "200", "--op-timeout", "2s",
		"--seed", "1", "--no-progress", "--nemesis-script", "0s:+pause,0s:+delay", "--store", "s")
	require.Equal(t, exitViolated, r.code, r.stdout+r.stderr)
	t.Log(r.stdout)

	run := filepath.Join(dir, "s", "latest")
	data, err := os.ReadFile(filepath.Join(run, "result.json"))
	require.NoError(t, err)
	var res struct {
		Minimal *struct {
			Resource  string `json:"resource"`
			Violation struct {
				Steps []struct {
					Op      int    `json:"op"`
					Event   string `json:"event"`
					Initial bool   `json:"initial"`
					Trace   string `json:"trace"`
				} `json:"steps"`
			} `json:"violation"`
		} `json:"minimal"`
	}
	require.NoError(t, json.Unmarshal(data, &res))
	require.NotNil(t, res.Minimal, "a violation is shrunk to a minimal counterexample")
	steps := res.Minimal.Violation.Steps
	require.NotEmpty(t, steps)

	log, err := os.ReadFile(filepath.Join(run, "receiver.log"))
	require.NoError(t, err)
	history, err := os.ReadFile(filepath.Join(run, "history.jsonl"))
	require.NoError(t, err)
	page, err := os.ReadFile(filepath.Join(run, "report.html"))
	require.NoError(t, err)
	invoke := regexp.MustCompile(`"type":"invoke".*"trace":"([0-9a-f]{32})"`)
	found := 0
	for i, st := range steps {
		if st.Initial {
			continue // the state before the run: no request made it
		}
		require.Regexp(t, `^[0-9a-f]{32}$`, st.Trace, "step %d (op %d)", i+1, st.Op)
		assert.Regexp(t, fmt.Sprintf(`(?m)^  step %d  op %d  process \d+  trace %s$`, i+1, st.Op, st.Trace), r.stdout,
			"the summary lists step %d's trace id", i+1)
		assert.Contains(t, string(page), ">"+st.Trace+"</code>", "the report shows step %d's trace", i+1)

		var invocations []string
		for _, line := range strings.Split(string(history), "\n") {
			if strings.Contains(line, st.Trace) {
				invocations = append(invocations, line)
			}
		}
		require.Len(t, invocations, 1, "op %d's trace id is on one event of the history", st.Op)
		m := invoke.FindStringSubmatch(invocations[0])
		require.NotNil(t, m, "it is an invocation: %s", invocations[0])
		assert.Equal(t, st.Trace, m[1])

		requests := regexp.MustCompile(`(?m)^time=\S+ msg=request method=(PUT|GET) resource=`+regexp.QuoteMeta(res.Minimal.Resource)+
			` (token=\d+ )?status=\d+ trace_id=`+st.Trace+`$`).FindAllString(string(log), -1)
		if strings.HasSuffix(st.Event, "→ unknown") {
			assert.LessOrEqual(t, len(requests), 1, "op %d's outcome is unknown: its request may never have arrived", st.Op)
			continue
		}
		assert.Len(t, requests, 1, "op %d (%s) is found in receiver.log by its trace id", st.Op, st.Event)
		for _, line := range requests {
			t.Logf("step %d, op %d: %s", i+1, st.Op, line)
		}
		found++
	}
	assert.Positive(t, found)
}
