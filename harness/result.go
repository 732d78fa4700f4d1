package harness

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/models"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/report"
)

// Result is what a run concluded. It is written to result.json.
type Result struct {
	Verdict     models.Verdict       `json:"verdict"`
	Reason      string               `json:"reason"`
	Check       models.Result        `json:"check"`
	Counts      histories.Counts     `json:"counts"`
	Coverage    Coverage             `json:"coverage"`
	Exclusive   []ExclusiveViolation `json:"exclusive_violations,omitempty"`
	Config      RunConfig            `json:"config"`
	Dir         string               `json:"dir"`
	Started     time.Time            `json:"started"`
	Elapsed     time.Duration        `json:"elapsed_ns"`
	Interrupted bool                 `json:"interrupted,omitempty"`
	Truncated   bool                 `json:"history_truncated,omitempty"`
	Notes       []string             `json:"notes,omitempty"`

	// Minimal is the first violation shrunk to a minimal counterexample.
	Minimal *models.Shrunk     `json:"minimal,omitempty"`
	history *histories.History // the checked history, for the report
}

// RunConfig is the part of the configuration needed to reproduce a run.
type RunConfig struct {
	Target           string   `json:"target"`
	Workers          int      `json:"workers"`
	Resources        int      `json:"resources"`
	Duration         string   `json:"duration"`
	Ops              int      `json:"ops"`
	Rate             float64  `json:"rate"`
	LeaseTTL         string   `json:"lease_ttl"`
	Faults           []string `json:"nemesis"`
	Seed             uint64   `json:"seed"`
	Deterministic    bool     `json:"deterministic"`
	Policy           string   `json:"policy"`
	RequireExclusive bool     `json:"require_exclusive"`
	MinStale         int      `json:"min_stale"`
	NoReport         bool     `json:"no_report,omitempty"`
	Version          string   `json:"version"`
}

func (c *Config) summary() RunConfig {
	var faults []string
	for _, f := range c.Faults {
		faults = append(faults, f.Name())
	}
	return RunConfig{
		Target: c.TargetName, Workers: c.Workers, Resources: c.Resources, Duration: c.Duration.String(),
		Ops: c.Ops, Rate: c.Rate, LeaseTTL: c.LeaseTTL.String(), Faults: faults, Seed: c.Seed,
		Deterministic: c.Deterministic, Policy: c.Policy.String(), RequireExclusive: c.RequireExclusive,
		MinStale: c.MinStale, NoReport: c.NoReport, Version: c.Version,
	}
}

// judge reads the recorded history back, checks it and measures coverage.
// Reading the file rather than memory checks exactly what a user would
// re-check later with fencecheck check.
func (r *run) judge(path string) (Result, error) {
	h, err := histories.ReadFile(path)
	if err != nil {
		return Result{}, fmt.Errorf("read back the recorded history: %w", err)
	}
	opts := models.Options{Policy: r.cfg.Policy, Timeout: r.cfg.CheckTimeout}
	check, note := models.Check(h.Operations, opts)
	cov, excl := measureCoverage(h)
	res := Result{Check: check, Counts: histories.Count(h.Operations), Coverage: cov, Config: r.cfg.summary(), Truncated: h.Truncated, history: h}
	if note != "" {
		res.Notes = append(res.Notes, note)
	}
	res.Minimal = shrinkFirst(h, check, opts, r.cfg.ShrinkTimeout)
	if r.cfg.RequireExclusive {
		res.Exclusive = excl
	}
	res.Verdict, res.Reason = decide(check, res.Exclusive, cov, r.cfg)
	return res, nil
}

// decide combines the check, the exclusive requirement and the coverage
// gate into one verdict.
func decide(check models.Result, excl []ExclusiveViolation, cov Coverage, cfg Config) (models.Verdict, string) {
	switch {
	case check.Verdict == models.Violated:
		return models.Violated, fmt.Sprintf("the history is not linearizable for a fenced register (%s policy) on %d resources", cfg.Policy, len(check.Violations))
	case len(excl) > 0:
		return models.Violated, fmt.Sprintf("%d writes were accepted after their lease had been reassigned (--require exclusive)", len(excl))
	case check.Verdict == models.Inconclusive:
		return models.Inconclusive, fmt.Sprintf("the checker gave up on %d resources", len(check.TimedOut))
	case cov.StaleWrites < cfg.MinStale:
		return models.Inconclusive, fmt.Sprintf("only %d stale writes were exercised; --min-stale asks for %d", cov.StaleWrites, cfg.MinStale)
	}
	return models.Held, "every resource's history is linearizable for a fenced register"
}

// Summary renders the result for people; it is summary.txt and the end of
// fencecheck run's output.
func (res *Result) Summary() string {
	var b strings.Builder
	c, cov, cfg := res.Counts, res.Coverage, res.Config
	mode := "real time"
	if cfg.Deterministic {
		mode = "deterministic"
	}
	fmt.Fprintf(&b, "run         %s\n", res.Dir)
	fmt.Fprintf(&b, "target      %s (%s, seed %d)\n", cfg.Target, mode, cfg.Seed)
	fmt.Fprintf(&b, "workload    %d workers, %d resources, %s, lease TTL %s, nemesis %s\n", cfg.Workers, cfg.Resources,
		workloadLength(cfg), cfg.LeaseTTL, faultList(cfg.Faults))
	fmt.Fprintf(&b, "operations  %d: %d writes (%d accepted, %d rejected, %d unknown, %d failed), %d reads (%d unknown)\n",
		c.Operations, c.Writes, c.Accepted, c.Rejected, c.UnknownWrites, c.FailedWrites, c.Reads, c.UnknownReads)
	fmt.Fprintf(&b, "exercised   %d stale writes (%d rejected, %d accepted, %d unknown); %d equal-token repeats (%d accepted);\n",
		cov.StaleWrites, cov.StaleRejected, cov.StaleAccepted, cov.StaleUnknown, cov.EqualTokenRepeats, cov.EqualTokenAccepted)
	fmt.Fprintf(&b, "            %d old tokens accepted before the newer one arrived (allowed by fencing); %d unknown outcomes;\n",
		cov.OldTokenFirst, cov.UnknownOutcomes)
	fmt.Fprintf(&b, "            %d lease grants, %d expiries; fault actions %s\n", cov.LeaseGrants, cov.LeaseExpiries, actionList(cov.FaultActions))
	for _, gap := range res.NotCovered() {
		fmt.Fprintf(&b, "not covered %s\n", gap)
	}
	fmt.Fprintf(&b, "checker     %s, %s model, %s policy, %s\n", res.Check.Checker, res.Check.Model, res.Check.Policy, res.Check.Elapsed.Round(time.Microsecond))
	for _, n := range res.Notes {
		fmt.Fprintf(&b, "note        %s\n", n)
	}
	if res.Interrupted {
		fmt.Fprintf(&b, "interrupted the run was stopped early; the verdict covers the history recorded until then\n")
	}
	fmt.Fprintf(&b, "verdict     %s: %s\n", strings.ToUpper(string(res.Verdict)), res.Reason)
	if res.Dir != "" && !res.Config.NoReport {
		fmt.Fprintf(&b, "report      %s\n", filepath.Join(res.Dir, report.ReportFile))
	}
	writeMinimal(&b, res.Minimal)
	for _, v := range res.Check.Violations {
		b.WriteString("\n")
		_ = models.WriteViolation(&b, v)
	}
	for i, x := range res.Exclusive {
		if i == 0 {
			b.WriteString("\nwrites accepted after their lease was reassigned (--require exclusive):\n")
		}
		if i == 10 {
			fmt.Fprintf(&b, "  ... and %d more\n", len(res.Exclusive)-10)
			break
		}
		fmt.Fprintf(&b, "  process %d wrote token %d to %s at %v, after token %d had been granted\n",
			x.Process, x.Token, x.Resource, time.Duration(x.Call), x.NewerToken)
	}
	return b.String()
}

// NotCovered lists what the run did not exercise, so that a pass says what
// it excluded.
func (res *Result) NotCovered() []string {
	var gaps []string
	cov := res.Coverage
	if cov.StaleWrites == 0 {
		gaps = append(gaps, "NO STALE WRITE WAS SUBMITTED: the protected case was never exercised (add --nemesis pause)")
	}
	if cov.EqualTokenRepeats == 0 {
		gaps = append(gaps, "no equal-token repeat was sent")
	}
	if cov.OldTokenFirst == 0 && !res.Config.RequireExclusive {
		gaps = append(gaps, "no old token reached the resource before a newer one (add --nemesis delay)")
	}
	if cov.UnknownOutcomes == 0 {
		gaps = append(gaps, "no operation had an unknown outcome")
	}
	if cov.FaultActions["kill"] == 0 {
		gaps = append(gaps, "durability across receiver crashes is not tested by this run (add --exec and --nemesis kill)")
	}
	gaps = append(gaps, "duplicate suppression and side effects outside the resource are not what fencing covers")
	return gaps
}

func workloadLength(cfg RunConfig) string {
	if cfg.Ops > 0 && cfg.Duration != "0s" {
		return fmt.Sprintf("%s or %d operations", cfg.Duration, cfg.Ops)
	}
	if cfg.Ops > 0 {
		return fmt.Sprintf("%d operations", cfg.Ops)
	}
	return cfg.Duration
}

func faultList(faults []string) string {
	if len(faults) == 0 {
		return "none"
	}
	return strings.Join(faults, ",")
}

func actionList(actions map[string]int) string {
	if len(actions) == 0 {
		return "none"
	}
	var parts []string
	for _, name := range nemesis.Names {
		if n, ok := actions[name]; ok {
			parts = append(parts, fmt.Sprintf("%s %d", name, n))
		}
	}
	// Faults from outside the nemesis package (proxy, receiver process),
	// in name order.
	var others []string
	for name := range actions {
		if !slices.Contains(nemesis.Names, name) {
			others = append(others, name)
		}
	}
	slices.Sort(others)
	for _, name := range others {
		parts = append(parts, fmt.Sprintf("%s %d", name, actions[name]))
	}
	return strings.Join(parts, ", ")
}
