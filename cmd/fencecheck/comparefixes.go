package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/fencecheck/fencecheck/check"
	"github.com/fencecheck/fencecheck/harness"
	"github.com/fencecheck/fencecheck/workload"
)

func newCompareFixesCommand() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "compare-fixes --target SPEC",
		Short: "Run the same seeded workload once per client strategy and compare what each let through and cost",
		Long: `compare-fixes reviews the article's tempting fixes against the same workload:
it makes one run per client strategy (none, longer-lease, renew,
check-before-write, fencing), each with the same flags and the same seed, each
stored in the run store as a run of its own, and prints one row per strategy:
the stale writes the receiver accepted, the verdict, the job latency (p50,
p99) and the leases taken from live workers (see docs/fixes.md for what each
column counts).

The strategies other than fencing send no token, so no receiver can reject
an older owner's write: against memory://fenced only fencing holds. Against
memory://unfenced every strategy lets stale writes through.

With a memory:// target every run is deterministic (a seeded scheduler and a
virtual clock): the same --seed prints the same table. Other targets and
--leases other than local run on the real clock, and their figures vary from
run to run.

It is a comparison, not a gate: the exit code is 0 when the table was
produced, whatever the verdicts, and 3 when a run could not be made (a bad
flag, an unreachable target, a target or lease service a strategy cannot
use).`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			f.noteChanged(cmd)
			return f.target.scrub(runCompareFixes(cmd.Context(), cmd, f))
		},
	}
	f.register(cmd.Flags(), cmdCompare)
	return cmd
}

// fixRow is one strategy's line of the comparison.
type fixRow struct {
	Strategy    string `json:"strategy"`
	Verdict     string `json:"verdict"`
	Reason      string `json:"reason"`
	StaleWrites int    `json:"stale_writes"`
	// StaleAccepted is the stale writes the receiver accepted.
	StaleAccepted int `json:"stale_accepted"`
	// ViolatedResources is how many resources' histories were violated,
	// of Resources.
	ViolatedResources int `json:"violated_resources"`
	Resources         int `json:"resources"`
	workload.Metrics
	Dir     string `json:"dir"`
	Command string `json:"reproduce"`
}

// fixTable is what compare-fixes prints.
type fixTable struct {
	Target        string   `json:"target"`
	Seed          uint64   `json:"seed"`
	Deterministic bool     `json:"deterministic"`
	Workload      string   `json:"workload"`
	Rows          []fixRow `json:"rows"`
}

func runCompareFixes(ctx context.Context, cmd *cobra.Command, f runFlags) error {
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	if f.seedGenerated {
		f.seed = randomSeed() // one seed for every run: the same workload
	}
	progress := !f.noProgress && !f.json && isTerminal(stderr)
	var table fixTable
	for _, s := range workload.Strategies() {
		g := f
		g.clientStrategy = s.String()
		res, err := runOnce(ctx, cmd, g, once{progress: progress, command: func(cfg harness.Config) string {
			return runLine(reproduceLine(cmd, effectiveRunFlags(cfg, g)), s)
		}})
		if err != nil {
			return fmt.Errorf("the %s run: %w", s, err)
		}
		if ctx.Err() != nil {
			return fmt.Errorf("the %s run was interrupted: %w", s, ctx.Err())
		}
		warn(stderr, res.Warnings)
		cfg := res.Config
		table.Target, table.Seed, table.Deterministic = cfg.Target, cfg.Seed, cfg.Deterministic
		table.Workload = fmt.Sprintf("%d workers, %d resources, %s, lease TTL %s, nemesis %s", cfg.Workers, cfg.Resources,
			runLength(cfg), cfg.LeaseTTL, strings.Join(cfg.Faults, ","))
		table.Rows = append(table.Rows, fixRow{Strategy: s.String(), Verdict: string(res.Verdict), Reason: res.Reason,
			StaleWrites: res.Coverage.StaleWrites, StaleAccepted: res.Coverage.StaleAccepted,
			ViolatedResources: len(res.Check.Violations), Resources: cfg.Resources, Metrics: res.Jobs, Dir: res.Dir, Command: cfg.Command})
	}
	if f.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(table)
	}
	return table.write(stdout)
}

// runLine turns compare-fixes's reproduce line into the run command that
// repeats one of its runs.
func runLine(line string, s workload.Strategy) string {
	line = strings.Replace(line, "fencecheck compare-fixes", "fencecheck run", 1)
	if s == workload.Fencing {
		return line
	}
	comment := ""
	if i := strings.Index(line, "  # "); i >= 0 {
		line, comment = line[:i], line[i:]
	}
	return line + " --client-strategy " + s.String() + comment
}

func runLength(cfg harness.RunConfig) string {
	switch {
	case cfg.Ops > 0 && cfg.Duration != "0s":
		return fmt.Sprintf("%s or %d operations", cfg.Duration, cfg.Ops)
	case cfg.Ops > 0:
		return fmt.Sprintf("%d operations", cfg.Ops)
	}
	return cfg.Duration
}

func (t *fixTable) write(w io.Writer) error {
	mode := "real time: the figures vary from run to run"
	if t.Deterministic {
		mode = "deterministic: the same seed prints the same table"
	}
	fmt.Fprintf(w, "target      %s (seed %d; %s)\n", t.Target, t.Seed, mode)
	fmt.Fprintf(w, "workload    %s, the same for every strategy\n\n", t.Workload)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "strategy\tstale writes accepted\tverdict\tjob latency p50\tp99\tleases taken from live workers\tjobs abandoned")
	for _, r := range t.Rows {
		fmt.Fprintf(tw, "%s\t%d of %d\t%s\t%s\t%s\t%d\t%d\n", r.Strategy, r.StaleAccepted, r.StaleWrites, r.verdict(),
			harness.RoundLatency(r.LatencyP50), harness.RoundLatency(r.LatencyP99), r.UnnecessaryReassignments, r.Abandoned)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nruns (summary.txt and report.html in each; docs/fixes.md says what each column counts):")
	for _, r := range t.Rows {
		fmt.Fprintf(w, "  %-19s %s\n", r.Strategy, r.Dir)
	}
	return nil
}

// verdict words a row's verdict: how many resources a violation was on.
func (r fixRow) verdict() string {
	if r.Verdict == string(check.Violated) && r.ViolatedResources > 0 {
		return fmt.Sprintf("violated (%d of %d resources)", r.ViolatedResources, r.Resources)
	}
	return r.Verdict
}
