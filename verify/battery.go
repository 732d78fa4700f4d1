package verify

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/internal/files"
	"github.com/fencecheck/fencecheck/lease"
	"github.com/fencecheck/fencecheck/logscan"
	"github.com/fencecheck/fencecheck/runstore"
	"github.com/fencecheck/fencecheck/sched"
	"github.com/fencecheck/fencecheck/targets"
)

// Workers is how many connections a target opened for the battery may
// use at once: its widest scenario, check-then-set-race, has 8 writers.
const Workers = 10

// leaseTTL is the TTL of the leases a token issuer grants the scenarios:
// each lease is ended by the scenario (the next owner's grant, or the end
// of the scenario), long before it runs out.
const leaseTTL = 30 * time.Second

// Battery is a receiver's battery in a run directory: what RunBattery
// plays.
type Battery struct {
	// Target is the receiver; Name names it, without a password.
	Target targets.Target
	Name   string
	// Issuer issues the scenarios' tokens (Options.Leases, opened in
	// Dir); nil, the scripted tokens.
	Issuer lease.Issuer
	// Dir is the run directory: the history goes there, and what the
	// target keeps of its own (targets.RunDirUser).
	Dir     string
	Options Options
	// Warn is told what went wrong around the battery without changing
	// its table: a tear-down that left something behind, an issuer that
	// did not close. Nil drops it.
	Warn func(string)
	_    struct{}
}

// warn tells b.Warn, if any.
func (b *Battery) warn(warnings ...string) {
	for _, w := range warnings {
		if b.Warn != nil {
			b.Warn(w)
		}
	}
}

// RunBattery sets the target up in the run directory, opens the token
// issuer there, plays the battery, recording its history there, and
// tears the target down. A receiver that goes away during a scenario
// fails it (Run); one that failed on its own (targets.Failing) and
// cannot be started again (Reviver) gives an error rather than a table
// about whatever answered in its place; the log of one that has one (targets.LogScanner)
// is read once it stopped, and its signs of a bug are a row.
func RunBattery(ctx context.Context, b Battery) (Report, error) {
	opts := b.Options
	if u, ok := b.Target.(targets.RunDirUser); ok {
		u.UseRunDir(b.Dir) // a receiver's output, a driver's messages: beside the history
	}
	if s, ok := b.Target.(targets.Setupper); ok {
		if err := s.Setup(ctx); err != nil {
			return Report{}, fmt.Errorf("set up target %s: %w", b.Name, err)
		}
	}
	teardown := func() { b.warn(targets.Teardown(context.WithoutCancel(ctx), b.Target, b.Name)...) }
	rt := sched.NewReal()
	rec, err := recordInto(b.Dir, rt)
	if err != nil {
		teardown()
		return Report{}, err
	}
	opts.Recorder = rec
	leases, closeLeases := "", func() {}
	if b.Issuer != nil {
		svc, err := b.Issuer.Open(ctx, lease.Env{Life: ctx, Runtime: rt, Recorder: rec, TTL: leaseTTL, Dir: b.Dir})
		if err != nil {
			teardown()
			_ = rec.Close()
			return Report{}, fmt.Errorf("open lease issuer %s: %w", b.Issuer.Name(), err)
		}
		// Closed before the recorder: nothing the issuer does after the
		// battery is part of its history.
		closeLeases = func() {
			if c, ok := svc.(io.Closer); ok {
				if err := c.Close(); err != nil {
					b.warn(fmt.Sprintf("close lease issuer %s: %v", b.Issuer.Name(), err))
				}
			}
		}
		opts.Leases, leases = svc, b.Issuer.Name()
	}
	outcomes, runErr := Run(ctx, b.Target, opts)
	closeLeases()
	teardown()
	if err := rec.Close(); err != nil {
		return Report{}, fmt.Errorf("record history: %w", err)
	}
	if _, revived := b.Target.(Reviver); runErr == nil && !revived {
		if f, ok := b.Target.(targets.Failing); ok {
			// After the receiver exited on its own, the table would be
			// about whatever answered in its place. (A Reviver's exits
			// are rows: it was started again each time.)
			runErr = f.Err()
		}
	}
	if runErr != nil {
		return Report{}, fmt.Errorf("verify %s: %w\n(the scenarios' history is in %s)", b.Name, runErr, b.Dir)
	}
	rep := Report{Target: b.Name, Leases: leases, Policy: opts.Policy.String(), MaxToken: opts.MaxToken, Exclusive: opts.RequireExclusive,
		Dir: b.Dir, Outcomes: outcomes}
	if l, ok := b.Target.(targets.LogScanner); ok {
		// Read once the receiver has stopped: its signs of a bug are a
		// row of the battery.
		rep.ReceiverLog = logscan.NewOutcome(l.ScanLog())
		rep.Outcomes = append(rep.Outcomes, ReceiverLogRow(rep.ReceiverLog))
	}
	return rep.judged(), nil
}

// RunIssuerBattery opens the issuer (nil: the run's own lease service on
// the real clock) with its events recorded in dir, and plays the
// issuer's battery with o (its Recorder is dir's).
func RunIssuerBattery(ctx context.Context, issuer lease.Issuer, dir string, o IssuerOptions) (Report, error) {
	rt := sched.NewReal()
	rec, err := recordInto(dir, rt)
	if err != nil {
		return Report{}, err
	}
	var svc lease.Service = lease.NewLocal(ctx, rt, rec, o.TTL)
	if issuer != nil {
		env := lease.Env{Life: ctx, Runtime: rt, Recorder: rec, TTL: o.TTL, Dir: dir, ClockJumps: clockJumps(issuer)}
		if svc, err = issuer.Open(ctx, env); err != nil {
			_ = rec.Close()
			return Report{}, fmt.Errorf("open lease issuer %s: %w", issuer.Name(), err)
		}
	}
	o.Recorder = rec
	outcomes, runErr := RunIssuer(ctx, svc, o)
	var closeErr error
	if c, ok := svc.(io.Closer); ok {
		closeErr = c.Close()
	}
	if err := rec.Close(); err != nil {
		return Report{}, fmt.Errorf("record history: %w", err)
	}
	if runErr != nil {
		return Report{}, runErr
	}
	if closeErr != nil {
		return Report{}, fmt.Errorf("close lease issuer: %w (the grants' history is in %s)", closeErr, dir)
	}
	return Report{Battery: "issuer", Dir: dir, Outcomes: outcomes}.judged(), nil
}

// WriteFiles writes the report's table and result.json into dir.
func WriteFiles(dir string, rep Report) error {
	for name, write := range map[string]func(io.Writer) error{
		runstore.Table:  func(w io.Writer) error { return WriteTable(w, rep.Outcomes) },
		runstore.Result: func(w io.Writer) error { return WriteJSON(w, rep) },
	} {
		if err := files.Write(filepath.Join(dir, name), "verify result", write); err != nil {
			return err
		}
	}
	return nil
}

// recordInto records a battery's history into dir's history file, on
// clock.
func recordInto(dir string, clock histories.Clock) (*histories.Recorder, error) {
	path := filepath.Join(dir, runstore.History)
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("create history %s: %w", path, err)
	}
	return histories.NewRecorder(f, histories.RecorderOptions{Clock: clock}), nil
}
