package judge

import (
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
	Check    explain.Result     `json:"check"`
	Counts   histories.Counts   `json:"counts"`
	Coverage Coverage           `json:"coverage"`
	Evidence histories.Evidence `json:"evidence"`
	// Exclusive are the writes accepted after their lease had ended, when
	// the exclusive requirement was asked for (Options.RequireExclusive).
	Exclusive []ExclusiveViolation `json:"exclusive_violations,omitempty"`
	// ReceiverLog is what the receiver's log showed (Options.ReceiverLog).
	ReceiverLog *logscan.Outcome `json:"receiver_log,omitempty"`
	// Notes say what the check did besides judging: why it fell back to
	// porcupine, what a second checker found.
	Notes []string `json:"notes,omitempty"`
	// Minimal is the first violation shrunk to a minimal counterexample.
	Minimal *explain.Shrunk `json:"minimal,omitempty"`
}
