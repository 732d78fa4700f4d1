package harness

import (
	"fmt"
	"strings"

	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/report"
)

// JUnit describes the run as a JUnit suite with one case per checked
// invariant: linearizability of each resource, the exclusive requirement
// when it was asked for, the receiver's log when fencecheck started the
// receiver, the coverage gate when MinStale is set, and the
// failover gate when the run has an issuer fault.
func (res *Result) JUnit() report.Suite {
	cfg := res.Config
	s := report.Suite{Name: "fencecheck run " + cfg.Target, Properties: []report.Fact{
		{Name: "target", Value: cfg.Target}, {Name: "seed", Value: fmt.Sprint(cfg.Seed)},
		{Name: "run", Value: res.Dir}, {Name: "command", Value: cfg.Command},
	}}
	// What the run exercised, hazard by hazard, and the bound it puts on
	// stale writes accepted: a pass's power, in the suite's properties.
	for _, h := range res.Hazards(&res.Config.judged) {
		s.Properties = append(s.Properties, report.Fact{Name: "exercised: " + h.Name, Value: h.String()})
	}
	if res.Verdict == judge.Held && res.Power.StaleTested > 0 {
		s.Properties = append(s.Properties, report.Fact{Name: "power", Value: res.Power.Sentence()})
	}
	for _, line := range res.calibrated() {
		s.Properties = append(s.Properties, report.Fact{Name: "calibrated", Value: line})
	}
	s.Cases = report.CheckCases(res.Check, res.resources(), res.Minimal)
	evidence := report.Case{Name: "every resource has an acknowledged write and a read after it", Classname: "evidence"}
	if !res.Evidence.Enough() {
		var b strings.Builder
		report.WriteErrors(&b, "", res.Evidence.Errors)
		evidence.Error = &report.Failure{Type: "inconclusive", Message: res.Evidence.Reason(), Text: b.String()}
	}
	s.Cases = append(s.Cases, evidence)
	if res.Interrupted {
		s.Cases = append(s.Cases, report.Case{Name: "the run ran to its end", Classname: "run",
			Error: &report.Failure{Type: "interrupted", Message: res.stopWords()}})
	}
	if cfg.RequireExclusive {
		c := report.Case{Name: "no write accepted after its lease ended", Classname: "exclusive"}
		if len(res.Exclusive) > 0 {
			var b strings.Builder
			for _, x := range res.Exclusive {
				fmt.Fprintf(&b, "%s\n", x)
			}
			c.Failure = &report.Failure{Type: "violation", Message: fmt.Sprintf("%d writes were accepted after their lease had ended", len(res.Exclusive)), Text: b.String()}
		}
		s.Cases = append(s.Cases, c)
	}
	if res.ReceiverLog != nil {
		s.Cases = append(s.Cases, report.LogCase(res.ReceiverLog))
	}
	if cfg.MinStale > 0 {
		c := report.Case{Name: fmt.Sprintf("at least %d stale writes exercised", cfg.MinStale), Classname: "coverage"}
		if res.Coverage.StaleWrites < cfg.MinStale {
			c.Error = &report.Failure{Type: "inconclusive", Message: fmt.Sprintf("only %d stale writes were exercised", res.Coverage.StaleWrites),
				Text: strings.Join(res.notCovered(), "\n")}
		}
		s.Cases = append(s.Cases, c)
	}
	if len(res.Config.judged.CrashFaults) > 0 || res.Coverage.Crashes > 0 {
		c := report.Case{Name: "a stale write answered after a crash of the receiver", Classname: "coverage"}
		if why := res.CrashUntested(&res.Config.judged); why != "" {
			c.Error = &report.Failure{Type: "inconclusive", Message: why}
		}
		s.Cases = append(s.Cases, c)
	}
	if len(cfg.issuerFaults) > 0 {
		c := report.Case{Name: "a lease granted after an issuer server came back from an outage", Classname: "coverage"}
		if why := res.FailoverUntested(&res.Config.judged); why != "" {
			c.Error = &report.Failure{Type: "inconclusive", Message: why}
		}
		s.Cases = append(s.Cases, c)
	}
	return s
}

// resources names the run's resources: from the history when the Result
// has it, else as the run names them.
func (res *Result) resources() []string {
	if res.history != nil {
		return report.Resources(res.history)
	}
	var out []string
	for i := range res.Config.Resources {
		out = append(out, fmt.Sprintf("r%d", i))
	}
	return out
}
