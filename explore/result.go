package explore

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/fencecheck/fencecheck/harness"
	"github.com/fencecheck/fencecheck/judge"
)

// Why a sweep stopped before its last seed (Result.Stopped).
const (
	StoppedViolation   = "violation"   // at the first violation (Options.KeepGoing goes on)
	StoppedBudget      = "budget"      // its time (Options.Budget) ran out
	StoppedInterrupted = "interrupted" // its context ended
)

// Result is what a sweep concluded. It is the sweep directory's
// result.json.
type Result struct {
	// Format is result.json's format (runstore.ResultFormat), as every
	// result of fencecheck names it.
	Format  int           `json:"format"`
	Verdict judge.Verdict `json:"verdict"`
	Reason  string        `json:"reason"`
	// Target names the receiver; Mode the runs' clock, as the first run
	// gave them.
	Target   string `json:"target"`
	Mode     string `json:"mode"`
	Seeds    Seeds  `json:"seeds"`
	Swarm    bool   `json:"swarm,omitempty"`
	Parallel int    `json:"parallel"`
	// Runs is how many seeds ran to a result: Held, Violated and
	// Inconclusive of them (ByGate says which gate made them so), and
	// Interrupted.
	Runs         int    `json:"runs"`
	Held         int    `json:"held"`
	Violated     int    `json:"violated"`
	Inconclusive int    `json:"inconclusive"`
	Interrupted  int    `json:"interrupted,omitempty"`
	ByGate       byGate `json:"inconclusive_by_gate,omitempty"`
	// Undecided are the first inconclusive seeds (up to maxUndecided), in
	// seed order.
	Undecided []Entry      `json:"undecided,omitempty"`
	Totals    judge.Totals `json:"totals"`
	// Failures are the seeds that violated, in seed order, with their
	// stored runs; the first is the lowest seed that violated among
	// those run, and, when the sweep stopped at it, the lowest in Seeds.
	Failures []Failure `json:"failures,omitempty"`
	// Stopped says why the sweep ended before Seeds.Last: StoppedViolation,
	// StoppedBudget, StoppedInterrupted; empty when it ran every seed.
	Stopped string `json:"stopped,omitempty"`
	// Calibration is what the twins of Options.Calibrate measured, and
	// how likely these runs were to catch each; nil without.
	Calibration *judge.Calibration `json:"calibration,omitempty"`

	Elapsed time.Duration `json:"elapsed_ns"`
	// Dir is the sweep's directory (sweep.jsonl, result.json,
	// summary.txt); empty without a store.
	Dir string `json:"dir,omitempty"`
}

// maxUndecided bounds Result.Undecided.
const maxUndecided = 10

// Failure is a seed that violated: its draw in a swarm, and its run's
// result (Result.Dir the stored run, Result.Config.Command the line
// that repeats it).
type Failure struct {
	Seed   uint64         `json:"seed"`
	Draw   *Draw          `json:"swarm,omitempty"`
	Result harness.Result `json:"result"`
}

// RunsPerSecond is the sweep's rate.
func (r *Result) RunsPerSecond() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Runs) / r.Elapsed.Seconds()
}

// Summary renders the sweep for people: the counts, what the runs
// exercised together, the verdict, and for the first failing seed its
// draw and its run's summary, with the explanation, the minimal
// counterexample and the command that repeats it.
func (r *Result) Summary() string {
	var b strings.Builder
	swarm := ""
	if r.Swarm {
		swarm = ", swarm"
	}
	fmt.Fprintf(&b, "sweep       %s (%s%s), seeds %s, %d at a time\n", r.Target, r.Mode, swarm, r.Seeds, r.Parallel)
	fmt.Fprintf(&b, "runs        %d in %s (%s runs/s): %d held, %d violated, %d inconclusive", r.Runs,
		r.Elapsed.Round(time.Millisecond), rate(r.RunsPerSecond()), r.Held, r.Violated, r.Inconclusive)
	if r.Interrupted > 0 {
		fmt.Fprintf(&b, ", %d interrupted", r.Interrupted)
	}
	b.WriteString("\n")
	if r.Inconclusive > 0 {
		fmt.Fprintf(&b, "undecided   %s; seeds %s\n", r.gateList(), r.undecidedSeeds())
	}
	switch r.Stopped {
	case StoppedViolation:
		fmt.Fprintf(&b, "stopped     at the first violation\n")
	case StoppedBudget:
		fmt.Fprintf(&b, "stopped     when the time budget ran out\n")
	case StoppedInterrupted:
		fmt.Fprintf(&b, "stopped     interrupted\n")
	}
	// Only runs checked to the end with no violation count (Totals): a
	// sweep that stopped at its first seeds can have none, and then
	// saying that they exercised nothing would read as a run that tested
	// nothing.
	if t := r.Totals; t.Runs > 0 || r.Violated == 0 {
		fmt.Fprintf(&b, "exercised   in %s with no violation: %d operations, %d stale writes (%d rejected, %d accepted, %d unknown); fault actions %s\n",
			plural(t.Runs, "checked run"), t.Operations, t.StaleWrites, t.StaleRejected, t.StaleAccepted, t.StaleUnknown, actions(t.FaultActions))
	}
	if c := r.Calibration; c != nil {
		for _, t := range c.Twins {
			fmt.Fprintf(&b, "twin        %s: %s\n", t.Name, t.Measure())
		}
		fmt.Fprintf(&b, "seeds       %s\n", c.Why)
	}
	fmt.Fprintf(&b, "verdict     %s: %s\n", strings.ToUpper(string(r.Verdict)), r.Reason)
	if c := r.Calibration; c != nil && r.Verdict != judge.Violated {
		for _, line := range c.Sentences(plural(c.Seeds, "run") + " of this sweep") {
			fmt.Fprintf(&b, "calibrated  %s\n", line)
		}
	}
	if r.Dir != "" {
		fmt.Fprintf(&b, "log         %s\n", filepath.Join(r.Dir, LogFile))
	}
	for i, f := range r.Failures {
		if i == 0 {
			continue
		}
		if i == 1 {
			fmt.Fprintf(&b, "\nother seeds that violated:\n")
		}
		fmt.Fprintf(&b, "  seed %d  %s\n", f.Seed, f.Result.Dir)
	}
	if len(r.Failures) > 0 {
		f := r.Failures[0]
		fmt.Fprintf(&b, "\nfailing seed %d\n", f.Seed)
		if f.Draw != nil {
			fmt.Fprintf(&b, "swarm       %s\n", f.Draw)
		}
		b.WriteString(f.Result.Summary())
	}
	return b.String()
}

// plural words n things.
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// rate words runs per second: whole above ten, else to a tenth.
func rate(perSecond float64) string {
	if perSecond >= 10 {
		return fmt.Sprintf("%.0f", perSecond)
	}
	return fmt.Sprintf("%.1f", perSecond)
}

// undecidedSeeds lists the first inconclusive seeds.
func (r *Result) undecidedSeeds() string {
	var parts []string
	for _, e := range r.Undecided {
		parts = append(parts, fmt.Sprintf("%d (%s)", e.Seed, e.Gate))
	}
	if r.Inconclusive > len(r.Undecided) {
		parts = append(parts, "…")
	}
	return strings.Join(parts, ", ")
}
