package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/models"
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
		events[i].Index, events[i].Time = int64(i), int64(1000*i)
	}
	path := filepath.Join(t.TempDir(), "history.jsonl")
	if err := histories.WriteFile(path, events); err != nil {
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

func TestJudgeBoth(t *testing.T) {
	t.Parallel()
	verdict := func(v models.Verdict, checker string) models.Result {
		res := models.Result{Verdict: v, Checker: checker}
		if v == models.Violated {
			res.Violations = []models.Violation{{Resource: "report"}}
		}
		if v == models.Inconclusive {
			res.TimedOut = []string{"report"}
		}
		return res
	}
	tests := []struct {
		name      string
		fast, ref models.Verdict
		want      models.Verdict
		err, note string
	}{
		{"agree held", models.Held, models.Held, models.Held, "", "porcupine agrees: held"},
		{"agree violated", models.Violated, models.Violated, models.Violated, "", `porcupine agrees: violated on "report"`},
		{"porcupine gives up", models.Violated, models.Inconclusive, models.Violated, "", "porcupine gave up"},
		{"disagree", models.Held, models.Violated, "", `checkers disagree: fast says held, porcupine says violated on "report"`, ""},
		{"disagree the other way", models.Violated, models.Held, "", `checkers disagree: fast says violated on "report", porcupine says held`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := checkers{
				fast: func([]histories.Operation, models.Options) (models.Result, error) {
					return verdict(tc.fast, "fast"), nil
				},
				porcupine: func([]histories.Operation, models.Options) models.Result { return verdict(tc.ref, "porcupine") },
			}
			res, notes, err := c.judge(nil, models.Options{}, checkerBoth)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				if code := exitCode(err, &bytes.Buffer{}); code != exitError {
					t.Fatalf("exit %d, want %d", code, exitError)
				}
				return
			}
			if err != nil || res.Verdict != tc.want || res.Checker != "fast" {
				t.Fatalf("got %s by %s, %v; want %s by fast", res.Verdict, res.Checker, err, tc.want)
			}
			if len(notes) != 1 || !strings.Contains(notes[0], tc.note) {
				t.Fatalf("notes %q, want %q", notes, tc.note)
			}
		})
	}
}
