package explore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/fencecheck/fencecheck/harness"
	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/workload"
)

// The article's tempting fixes, measured: one run per client strategy
// (workload.Strategies, fencing last) on the same seeded workload, and
// what each let through and cost. In the deterministic simulation the
// runs, and so the table, are a function of the seed.

// FixRun makes the run of the comparison for one client strategy: the
// same configuration and seed whatever the strategy.
type FixRun func(ctx context.Context, s workload.Strategy) (harness.Result, error)

// FixRow is one strategy's line of the comparison.
type FixRow struct {
	Strategy    string        `json:"strategy"`
	Verdict     judge.Verdict `json:"verdict"`
	Reason      string        `json:"reason"`
	StaleWrites int           `json:"stale_writes"`
	// StaleAccepted is the stale writes the receiver accepted.
	StaleAccepted int `json:"stale_accepted"`
	// ViolatedResources is how many resources' histories were violated,
	// of Resources.
	ViolatedResources int `json:"violated_resources"`
	Resources         int `json:"resources"`
	workload.Metrics
	Dir     string `json:"dir"`
	Command string `json:"reproduce"`
	// NotRun says why the strategy was not run: a target that cannot
	// write without a token cannot run the fixes that write without one.
	NotRun string `json:"not_run,omitempty"`
}

// Fixes is the comparison: the workload every strategy ran, and a row
// per strategy.
type Fixes struct {
	Target        string   `json:"target"`
	Seed          uint64   `json:"seed"`
	Deterministic bool     `json:"deterministic"`
	Workload      string   `json:"workload"`
	Rows          []FixRow `json:"rows"`
}

// CompareFixes makes run's run for every client strategy, in the
// order of the article's table, and tables them. It stops at the first
// run that could not be made, or at an interruption, with an error
// naming the strategy: a table with a strategy missing compares nothing.
// A strategy the target cannot run (a fix without fencing, on a target
// that takes no write without a token) is a row saying so, not an error:
// fencing's row still stands beside the fixes that could run.
func CompareFixes(ctx context.Context, run FixRun) (Fixes, error) {
	var table Fixes
	for _, s := range workload.Strategies() {
		res, err := run(ctx, s)
		if why, ok := cannotRun(s, err); ok {
			table.Rows = append(table.Rows, FixRow{Strategy: s.String(), NotRun: why})
			continue
		}
		if err != nil {
			return table, fmt.Errorf("the %s run: %w", s, err)
		}
		if ctx.Err() != nil {
			return table, fmt.Errorf("the %s run was interrupted: %w", s, ctx.Err())
		}
		cfg := res.Config
		table.Target, table.Seed, table.Deterministic = cfg.Target, cfg.Seed, cfg.Deterministic
		table.Workload = fmt.Sprintf("%d workers, %d resources, %s, lease TTL %s, nemesis %s", cfg.Workers, cfg.Resources,
			runLength(cfg), cfg.LeaseTTL, strings.Join(cfg.Faults, ","))
		if cfg.ClockSkew != "" {
			table.Workload += ", client clocks " + cfg.ClockSkew + " behind the issuer's"
		}
		table.Rows = append(table.Rows, FixRow{Strategy: s.String(), Verdict: res.Verdict, Reason: res.Reason,
			StaleWrites: res.Coverage.StaleWrites, StaleAccepted: res.Coverage.StaleAccepted,
			ViolatedResources: len(res.Check.Violations), Resources: cfg.Resources, Metrics: res.Jobs, Dir: res.Dir, Command: cfg.Command})
	}
	return table, nil
}

// cannotRun says why the target cannot run strategy s, when err is the
// configuration's refusal of a strategy that writes without a token.
func cannotRun(s workload.Strategy, err error) (string, bool) {
	var fe *harness.FieldError
	if s.Fences() || !errors.As(err, &fe) || fe.Field != "Workload.Strategy" {
		return "", false
	}
	return fe.Err.Error(), true
}

// runLength words how long a run was bounded to.
func runLength(cfg harness.RunConfig) string {
	switch {
	case cfg.Ops > 0 && cfg.Duration != "0s":
		return fmt.Sprintf("%s or %d operations", cfg.Duration, cfg.Ops)
	case cfg.Ops > 0:
		return fmt.Sprintf("%d operations", cfg.Ops)
	}
	return cfg.Duration
}

// Summary is the comparison for people: the workload, a row per
// strategy, and each run's directory.
func (t *Fixes) Summary() string {
	var w strings.Builder
	mode := "real time: the figures vary from run to run"
	if t.Deterministic {
		mode = "deterministic: the same seed prints the same table"
	}
	fmt.Fprintf(&w, "target      %s (seed %d; %s)\n", t.Target, t.Seed, mode)
	fmt.Fprintf(&w, "workload    %s, the same for every strategy\n\n", t.Workload)
	tw := tabwriter.NewWriter(&w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "strategy\tstale writes accepted\tverdict\tjob latency p50\tp99\tleases taken from live workers\tjobs abandoned")
	for _, r := range t.Rows {
		fmt.Fprintf(tw, "%s\t%d of %d\t%s\t%s\t%s\t%d\t%d\n", r.Strategy, r.StaleAccepted, r.StaleWrites, r.verdict(),
			harness.RoundLatency(r.LatencyP50), harness.RoundLatency(r.LatencyP99), r.UnnecessaryReassignments, r.Abandoned)
	}
	_ = tw.Flush() // a strings.Builder takes every write
	fmt.Fprintln(&w, "\nruns (summary.txt and report.html in each; docs/fixes.md says what each column counts):")
	for _, r := range t.Rows {
		where := r.Dir
		if r.NotRun != "" {
			where = "not run: " + r.NotRun
		}
		fmt.Fprintf(&w, "  %-19s %s\n", r.Strategy, where)
	}
	return w.String()
}

// verdict words a row's verdict: how many resources a violation was on.
func (r FixRow) verdict() string {
	if r.NotRun != "" {
		return "not run"
	}
	if r.Verdict == judge.Violated && r.ViolatedResources > 0 {
		return fmt.Sprintf("violated (%d of %d resources)", r.ViolatedResources, r.Resources)
	}
	return string(r.Verdict)
}
