package harness

import (
	"fmt"

	"github.com/fencecheck/fencecheck/check"
	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/model"
	"github.com/fencecheck/fencecheck/report"
	"github.com/fencecheck/fencecheck/runstore"
)

// writeReport writes report.html, timeline.html and, for a violation,
// minimal.html and minimal.jsonl into the run directory.
func writeReport(dir string, res *Result) error {
	if res.history == nil {
		return nil
	}
	if _, err := report.Write(dir, res.ReportInput(), report.DefaultLimits()); err != nil {
		return fmt.Errorf("write report in %s: %w", dir, err)
	}
	return nil
}

// ReportInput describes the run for the report package. It needs the
// checked history, which only a Result returned by Run carries.
func (res *Result) ReportInput() report.Input {
	cfg, cov := res.Config, res.Coverage
	policy, _ := model.ParsePolicy(cfg.Policy)
	in := report.Input{
		Title: cfg.Target, Verdict: res.Verdict, Reason: res.Reason, Command: cfg.Command,
		Started: res.Started, Elapsed: res.Elapsed, History: res.history, Check: res.Check,
		Options: check.Options{Policy: policy}, Minimal: res.Minimal, Kinds: res.Findings, NotCovered: res.notCovered(),
		Files: []string{runstore.History, runstore.Result, runstore.Summary},
	}
	for _, h := range res.Hazards(&res.Config.judged) {
		in.Exercised = append(in.Exercised, report.Fact{Name: h.Name, Value: h.String()})
	}
	in.Exercised = append(in.Exercised,
		report.Fact{Name: "lease grants, expiries", Value: fmt.Sprintf("%d, %d", cov.LeaseGrants, cov.LeaseExpiries)},
		report.Fact{Name: "fault actions", Value: actionList(cov.FaultActions)})
	if res.Verdict == judge.Held && res.Power.StaleTested > 0 {
		in.Exercised = append(in.Exercised, report.Fact{Name: "power", Value: res.Power.Sentence()})
	}
	for _, line := range res.calibrated() {
		in.Exercised = append(in.Exercised, report.Fact{Name: "calibrated", Value: line})
	}
	if l := res.ReceiverLog; l != nil {
		// What was searched, found and can be said of data races: a
		// clean log is a claim too, and no stronger than its search.
		in.Exercised = append(in.Exercised, report.Fact{Name: "receiver log", Value: l.Line()})
	}
	in.Config = []report.Fact{
		{Name: "target", Value: cfg.Target},
		{Name: "mode", Value: cfg.mode(true)},
		{Name: "seed", Value: fmt.Sprint(cfg.Seed)},
		{Name: "workers, resources", Value: workersAndResources(cfg)},
		{Name: "length", Value: workloadLength(cfg)},
		{Name: "lease TTL", Value: cfg.LeaseTTL},
		{Name: "nemesis", Value: faultList(cfg.Faults)},
		{Name: "policy", Value: cfg.Policy},
		{Name: "require exclusive", Value: fmt.Sprint(cfg.RequireExclusive)},
		{Name: "min stale writes", Value: fmt.Sprint(cfg.MinStale)},
		{Name: "run directory", Value: res.Dir},
		{Name: "fencecheck version", Value: cfg.Version},
	}
	if res.Interrupted {
		in.Findings = append(in.Findings, "The run was interrupted ("+res.stopWords()+"); the verdict covers the history recorded until then.")
	}
	for i, x := range res.Exclusive {
		if i == 10 {
			in.Findings = append(in.Findings, fmt.Sprintf("… and %d more writes accepted after their lease had ended.", len(res.Exclusive)-10))
			break
		}
		in.Findings = append(in.Findings, fmt.Sprintf("%s: %s; the write was accepted.", res.terms().Setting(requireExclusive), x))
	}
	if l := res.ReceiverLog; l != nil {
		in.Findings = append(in.Findings, l.Sentences()...)
		if l.File != "" {
			in.Files = append(in.Files, l.Name())
		}
	}
	if res.Minimal != nil {
		in.Files = append(in.Files, runstore.Minimal, runstore.MinimalHistory)
	}
	return in
}

// workersAndResources is the report's "workers, resources" fact: of a
// shard, the resources it owned of the job's.
func workersAndResources(cfg RunConfig) string {
	if cfg.Shard != "" {
		return fmt.Sprintf("%d, %d of %d (shard %s)", cfg.Workers, len(cfg.ResourceNames), cfg.Resources, cfg.Shard)
	}
	return fmt.Sprintf("%d, %d", cfg.Workers, cfg.Resources)
}
