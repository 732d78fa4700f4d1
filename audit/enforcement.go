package audit

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/fencecheck/fencecheck/runstore"
	"github.com/fencecheck/fencecheck/verify"
)

// enforcementStep plays the receiver's battery: the scope of a token,
// its domain and digit boundaries, the check-then-set race, acknowledged
// writes, and restart durability when fencecheck started the receiver;
// equal tokens and an old token first are the known limits, reported and
// not failed.
func enforcementStep(ctx context.Context, o *Options, dir string, b *budget) (Step, error) {
	s := newStep(StepEnforcement)
	ctx, cancel, cut := stepContext(ctx, b, &s)
	defer cancel()
	if cut {
		return s, nil
	}
	start := time.Now()
	tgt, closeTarget, err := o.Receiver(ctx)
	if err != nil {
		return s, fmt.Errorf("open the receiver %s: %w", o.Name, err)
	}
	runDir, err := runstore.Create(dir, "receiver-battery", time.Now())
	if err != nil {
		return s, errors.Join(err, closeTarget())
	}
	var warnings []string
	rep, err := verify.RunBattery(ctx, verify.Battery{Target: tgt, Name: o.Name, Issuer: o.Issuer, Dir: runDir, Options: o.Battery,
		Warn: func(w string) { warnings = append(warnings, w) }})
	err = errors.Join(err, closeTarget())
	if err != nil {
		if ctx.Err() != nil {
			return s.cutAfter(start, "the receiver's battery did not finish"), nil
		}
		return s, fmt.Errorf("the receiver's battery: %w", err)
	}
	if err := verify.WriteFiles(runDir, rep); err != nil {
		return s, err
	}
	s.battery(rep, rel(dir, runDir))
	s.cutDuring(ctx, start, "the receiver's battery did not finish")
	for _, w := range warnings {
		s.Evidence = append(s.Evidence, "warning: "+w)
	}
	return s, nil
}
