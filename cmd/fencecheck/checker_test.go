package main

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fencecheck/fencecheck/check"
	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/internal/files"
)

// writeHistory writes a history of writes (token, value, outcome) by one
// process each, one after another, and returns its path.
func writeHistory(t *testing.T, writes ...histories.Event) string {
	t.Helper()
	var events []histories.Event
	for i, w := range writes {
		inv := histories.Event{Process: i, Type: histories.TypeInvoke, F: histories.FWrite, Resource: "report", Token: w.Token, HasToken: true, Value: w.Value, HasValue: true}
		done := inv
		done.Type, done.Outcome, done.Value, done.HasValue = histories.TypeOK, w.Outcome, "", false
		events = append(events, inv, done)
	}
	// A read after the writes, of the last accepted one: without one the
	// history would hold no evidence.
	var last *histories.Event
	for i := range writes {
		if w := &writes[i]; w.Outcome == histories.Accepted {
			last = w
		}
	}
	if last != nil {
		read := histories.Event{Process: len(writes), Type: histories.TypeInvoke, F: histories.FRead, Resource: "report"}
		got := read
		got.Type, got.Token, got.HasToken, got.Value, got.HasValue = histories.TypeOK, last.Token, true, last.Value, true
		events = append(events, read, got)
	}
	for i := range events {
		events[i].Index, events[i].Time = histories.FirstIndex+int64(i), int64(1000*i)
	}
	path := filepath.Join(schema.TempDir(t), "history.jsonl")
	if err := writeEvents(path, events); err != nil {
		t.Fatal(err)
	}
	return path
}

func write(token uint64, value string, o histories.Outcome) histories.Event {
	return histories.Event{Token: token, Value: value, Outcome: o}
}

func TestCheckCommandCheckers(t *testing.T) {
	t.Parallel()
	held := writeHistory(t, write(42, "new", histories.Accepted), write(41, "old", histories.Rejected))
	stale := writeHistory(t, write(42, "new", histories.Accepted), write(41, "old", histories.Accepted))
	repeated := writeHistory(t, write(42, "same", histories.Accepted), write(41, "same", histories.Rejected))
	tests := []struct {
		name     string
		args     []string
		code     int
		stdout   string
		stderr   string
		noStderr bool
	}{
		{"fast by default", []string{held}, exitHeld, "checker        fast,", "", true},
		{"fast finds the stale write", []string{stale}, exitViolated, "stale write accepted", "", true},
		{"porcupine", []string{"--checker", "porcupine", stale}, exitViolated, "checker        porcupine,", "", true},
		{"both agree", []string{"--checker", "both", stale}, exitViolated, "checker        fast,", "note: porcupine agrees: violated on \"report\"", false},
		{"fallback on repeated values", []string{repeated}, exitHeld, "checker        porcupine,", `note: the fast checker cannot judge this history (resource "report": value "same" is written by operations #0 and #1); falling back to porcupine`, false},
		{"fallback on the plain register", []string{"--model", "register", stale}, exitHeld, "checker        porcupine,", "register model is not supported", false},
		{"json keeps the notes", []string{"--json", repeated}, exitHeld, `"notes": [`, "falling back", false},
		{"unknown checker", []string{"--checker", "quick", held}, exitError, "", "--checker: unknown checker \"quick\"", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), append([]string{"check"}, tc.args...), &stdout, &stderr)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr %s", code, tc.code, stderr.String())
			}
			if !strings.Contains(stdout.String(), tc.stdout) {
				t.Errorf("stdout does not contain %q:\n%s", tc.stdout, stdout.String())
			}
			if !strings.Contains(stderr.String(), tc.stderr) || (tc.noStderr && stderr.Len() > 0) {
				t.Errorf("stderr %q, want %q", stderr.String(), tc.stderr)
			}
		})
	}
}

// TestCheckCommandStopsWhenCancelled: the check honours its context, which
// Ctrl-C cancels (main's signal.NotifyContext): an interrupted check exits
// with an error, not a verdict.
func TestCheckCommandStopsWhenCancelled(t *testing.T) {
	t.Parallel()
	stale := writeHistory(t, write(42, "new", histories.Accepted), write(41, "old", histories.Accepted))
	for _, checker := range []string{"fast", "porcupine", "both"} {
		t.Run(checker, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			var stdout, stderr bytes.Buffer
			code := run(ctx, []string{"check", "--checker", checker, stale}, &stdout, &stderr)
			assert.Equal(t, exitError, code, "stdout %s", stdout.String())
			assert.Contains(t, stderr.String(), context.Canceled.Error())
		})
	}
}

// TestDisagreementExitsWithError: when the checkers of --checker both
// disagree, that matters more than the history: exit 3, not a verdict.
func TestDisagreementExitsWithError(t *testing.T) {
	t.Parallel()
	err := &check.Disagreement{Fast: check.Result{Verdict: check.Held}, Porcupine: check.Result{Verdict: check.Violated}}
	var stderr bytes.Buffer
	assert.Equal(t, exitError, exitCode(err, &stderr))
	assert.Contains(t, stderr.String(), "checkers disagree")
}

// writeEvents writes events, after the header, as the history file at
// path.
func writeEvents(path string, events []histories.Event) error {
	return files.Write(path, "history", func(w io.Writer) error { return histories.Write(w, events) })
}
