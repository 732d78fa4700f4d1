package judge

import (
	"strings"

	"github.com/fencecheck/fencecheck/explain"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/logscan"
)

// Report is a judgement: the verdict, what decided it, and the evidence
// it stands on. It is the judgement part of a run's result.json and of
// fencecheck check --json, one schema for both
// (docs/schema/result.schema.json).
type Report struct {
	Verdict Verdict `json:"verdict"`
	// Gate is what decided the verdict; Reason says it in words. Gate is
	// not in the JSON, whose reason says the same.
	Gate   Gate   `json:"-"`
	Reason string `json:"reason"`
	// Check is the checker's result, with each violation worded.
	Check    explain.Result   `json:"check"`
	Counts   histories.Counts `json:"counts"`
	Coverage Coverage         `json:"coverage"`
	// Power is what the coverage rules out (stale-write acceptance at a
	// rate, with a confidence).
	Power    Power              `json:"power"`
	Evidence histories.Evidence `json:"evidence"`
	// Exclusive are the writes accepted after their lease had ended, when
	// the exclusive requirement was asked for (Options.RequireExclusive).
	Exclusive []ExclusiveViolation `json:"exclusive_violations,omitempty"`
	// ReceiverLog is what the receiver's log showed (Options.ReceiverLog).
	ReceiverLog *logscan.Outcome `json:"receiver_log,omitempty"`
	// Findings are the failures found, by kind, root causes first, each
	// with its count and its first example; empty when none was found.
	Findings []Finding `json:"findings,omitempty"`
	// Notes say what the check did besides judging: why it fell back to
	// porcupine, what a second checker found.
	Notes []string `json:"notes,omitempty"`
	// Minimal is the first violation shrunk to a minimal counterexample.
	Minimal *explain.Shrunk `json:"minimal,omitempty"`
}

// Headline is the verdict as a person reads it first: "HELD",
// "VIOLATED", or "HELD (no stale write tested)" for a pass whose caller
// opted out of the stale-write gate and got none.
func (r *Report) Headline() string {
	h := strings.ToUpper(string(r.Verdict))
	if r.Verdict == Held && r.Coverage.StaleWrites == 0 {
		h += " (" + NoStaleTested + ")"
	}
	return h
}
