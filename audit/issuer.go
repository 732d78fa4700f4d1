package audit

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/fencecheck/fencecheck/lease"
	"github.com/fencecheck/fencecheck/runstore"
	"github.com/fencecheck/fencecheck/verify"
)

// issuerStep names the token issuer and what a token is. With
// fencecheck's own issuer it says plainly that the user's was not
// tested: the audit is then no pass.
func issuerStep(o *Options) Step {
	s := newStep(StepIssuer)
	if o.Issuer == nil {
		s.Result = "not tested"
		s.untested = "the tokens came from fencecheck's own issuer, not yours: audit with the issuer you will use to test it"
		s.Reason = s.untested
		s.Evidence = []string{"issuer: fencecheck's own, in memory (lease.Local): a counter per resource that only grows"}
		return s
	}
	token := "what its grants return (the issuer does not say)"
	if ts, ok := o.Issuer.(lease.TokenSource); ok {
		token = ts.TokenSource()
	}
	s.Reason = "tokens from " + o.Issuer.Name()
	s.Evidence = []string{"issuer: " + o.Issuer.Name(), "a token is " + token}
	return s
}

// sequenceStep plays the issuer's battery: its sequence must only grow,
// across the failures it supports here (a restart of a server fencecheck
// started, a lost leader), each row saying what the fault did.
func sequenceStep(ctx context.Context, o *Options, dir string, b *budget) (Step, error) {
	s := newStep(StepSequence)
	ctx, cancel, cut := stepContext(ctx, b, &s)
	defer cancel()
	if cut {
		return s, nil
	}
	start := time.Now()
	runDir, err := runstore.Create(dir, "issuer-battery", start)
	if err != nil {
		return s, err
	}
	rep, err := verify.RunIssuerBattery(ctx, o.Issuer, runDir, o.IssuerBattery)
	if err != nil {
		if ctx.Err() != nil {
			return s.cutAfter(start, "the issuer's battery did not finish"), nil
		}
		return s, fmt.Errorf("the issuer's battery: %w", err)
	}
	if err := verify.WriteFiles(runDir, rep); err != nil {
		return s, err
	}
	s.battery(rep, rel(dir, runDir))
	s.cutDuring(ctx, start, "the issuer's battery did not finish")
	return s, nil
}

// battery fills a step from a battery's report: its verdict, a line per
// scenario, and its run directory.
func (s *Step) battery(rep verify.Report, run string) {
	s.judged(rep.Verdict, rep.Reason)
	s.Evidence = append(s.Evidence, verify.Summary(rep.Outcomes))
	for _, r := range rep.Outcomes {
		line := fmt.Sprintf("%s: %s (%s)", r.Scenario, r.Observed, r.Result)
		if len(r.FollowsFrom) > 0 {
			line += fmt.Sprintf(" (may follow from %v)", r.FollowsFrom)
		}
		s.Evidence = append(s.Evidence, line)
	}
	s.Runs = append(s.Runs, run)
}

// rel is path relative to dir, for a link in the audit's report.
func rel(dir, path string) string {
	r, err := filepath.Rel(dir, path)
	if err != nil {
		return path
	}
	return filepath.ToSlash(r)
}
