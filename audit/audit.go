package audit

import (
	"context"
	"errors"
	"time"

	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/runstore"
)

// Report is what an audit concluded: audit.json (docs/schema/audit.schema.json).
type Report struct {
	// Format is the version of audit.json's format (Format).
	Format int `json:"format"`
	// Target names the receiver audited; Issuer the token issuer, empty
	// for fencecheck's own.
	Target string `json:"target"`
	Issuer string `json:"issuer,omitempty"`
	// Verdict is the audit's (judge.DecideAudit), Reason says it.
	Verdict judge.Verdict `json:"verdict"`
	Reason  string        `json:"reason"`
	Steps   []Step        `json:"steps"`
	// Budget is the audit's bound (0: none); Elapsed how long it took.
	Budget  time.Duration `json:"budget_ns,omitempty"`
	Elapsed time.Duration `json:"elapsed_ns"`
	Started time.Time     `json:"started"`
	// Dir is the audit's directory in the run store.
	Dir string `json:"dir"`
	// Command repeats the audit, as its caller would type it.
	Command string `json:"command,omitempty"`
}

// Format is the version of audit.json's format. It goes up when a field
// changes its meaning or goes away, not when one is added.
const Format = 1

// Run plays the audit's steps in the article's order, each in its window
// of the budget (budget.go), stores their runs and the report in the
// audit's directory, and judges them together (judge.DecideAudit). A
// step that cannot run at all (a receiver that cannot be reached, an
// issuer that cannot be opened) is an error, with what the audit had
// recorded kept; a step the budget cut is in the report, saying what it
// reached.
func Run(ctx context.Context, o Options) (Report, error) {
	if err := o.validate(); err != nil {
		return Report{}, err
	}
	started := time.Now()
	dir, err := runstore.Create(o.Store, "audit-"+runstore.Name(o.Name), started)
	if err != nil {
		return Report{}, err
	}
	b := newBudget(o.Budget, time.Now)
	rep := Report{Format: Format, Target: o.Name, Budget: o.Budget, Started: started.UTC(), Dir: dir, Command: o.Command}
	if o.Issuer != nil {
		rep.Issuer = o.Issuer.Name()
	}
	timed := func(step func() (Step, error)) error {
		begin := time.Now()
		s, err := step()
		s.Elapsed = time.Since(begin)
		rep.Steps = append(rep.Steps, s)
		return err
	}
	var totals judge.Totals
	err = errors.Join(
		timed(func() (Step, error) { return issuerStep(&o), nil }),
		timed(func() (Step, error) { return sequenceStep(ctx, &o, dir, b) }),
	)
	if err == nil {
		err = timed(func() (Step, error) { return enforcementStep(ctx, &o, dir, b) })
	}
	if err == nil {
		err = timed(func() (Step, error) {
			s, t, err := pausedWorkerStep(ctx, &o, dir, b)
			totals = t
			return s, err
		})
	}
	if err == nil {
		err = timed(func() (Step, error) { return fixesStep(ctx, &o, dir, b) })
	}
	if err != nil {
		return rep, runstore.Fail(o.Store, dir, err)
	}
	_ = timed(func() (Step, error) { return limitsStep(totals), nil })
	steps := make([]judge.AuditStep, len(rep.Steps))
	for i := range rep.Steps {
		steps[i] = rep.Steps[i].forJudge()
	}
	rep.Verdict, _, rep.Reason = judge.DecideAudit(steps)
	rep.Elapsed = time.Since(started)
	if err := writeFiles(dir, &rep); err != nil {
		return rep, err
	}
	return rep, runstore.Publish(o.Store, dir)
}

// validate names what the options lack.
func (o *Options) validate() error {
	var errs []error
	if o.Receiver == nil {
		errs = append(errs, errors.New("audit: Receiver is required: the audit opens the receiver for its battery"))
	}
	if o.Run == nil {
		errs = append(errs, errors.New("audit: Run is required: the audit makes its runs with it"))
	}
	if o.Seeds < 1 {
		errs = append(errs, errors.New("audit: Seeds must be at least 1"))
	}
	if o.Parallel < 1 {
		errs = append(errs, errors.New("audit: Parallel must be at least 1"))
	}
	if o.Confidence < 0 || o.Confidence >= 1 {
		errs = append(errs, errors.New("audit: Confidence must be from 0 (none) up to, not including, 1"))
	}
	if o.Confidence > 0 && o.Calibrate == nil {
		errs = append(errs, errors.New("audit: a Confidence needs Calibrate, the twins it is measured on"))
	}
	if o.Budget < 0 {
		errs = append(errs, errors.New("audit: Budget must not be negative"))
	}
	if o.Store == "" {
		errs = append(errs, errors.New("audit: Store is required"))
	}
	return errors.Join(errs...)
}
