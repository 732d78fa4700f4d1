package audit

import (
	"context"
	"time"

	"github.com/fencecheck/fencecheck/explore"
	"github.com/fencecheck/fencecheck/harness"
	"github.com/fencecheck/fencecheck/lease"
	"github.com/fencecheck/fencecheck/targets"
	"github.com/fencecheck/fencecheck/verify"
	"github.com/fencecheck/fencecheck/workload"
)

// Options say what to audit, and how long it may take. DefaultOptions
// gives the defaults.
type Options struct {
	// Name names the receiver in the report and the run store (without a
	// password).
	Name string
	// Receiver opens the receiver for the enforcement point's battery
	// (step 3); the audit closes what it opened.
	Receiver func(ctx context.Context) (targets.Target, func() error, error)
	// Issuer is the token issuer under audit; nil, fencecheck's own
	// (lease.Local), and step 1 then says the user's issuer was not
	// tested.
	Issuer lease.Issuer
	// Run makes one run against the receiver (steps 4 and 5): the
	// configuration the caller chose (workload, faults, target) with the
	// seed, the client strategy, the run store and which runs it keeps
	// that RunSpec gives.
	Run func(ctx context.Context, r RunSpec) (harness.Result, error)
	// Battery and IssuerBattery are the options of the two batteries.
	Battery       verify.Options
	IssuerBattery verify.IssuerOptions
	// Seeds is how many seeds the paused-worker test runs at most; the
	// budget may cut it first.
	Seeds int
	// Parallel is how many of its runs go at once.
	Parallel int
	// Confidence, above 0, calibrates the paused-worker test: its
	// configuration is first run against Calibrate's twins (receivers of
	// the target's kind with planted bugs), and the sweep then runs as
	// many seeds as every twin needs to be caught with this probability,
	// at most Seeds; short of it, the step is inconclusive, saying what
	// was reached. 0: no calibration.
	Confidence float64
	// Calibrate are the twins and the Run that makes their runs
	// (explore.Calibrate; its Confidence is Options.Confidence's), needed
	// with a Confidence.
	Calibrate *explore.Calibrate
	// Budget bounds the whole audit (Shares says how the steps share it);
	// 0: no bound.
	Budget time.Duration
	// Store is the run store: the audit's directory is
	// <Store>/audit-<Name>/<time>, and every step's runs are below it.
	Store string
	// Command is the line that repeats the audit, for the report.
	Command string
	_       struct{}
}

// RunSpec is one run the audit asks Options.Run for.
type RunSpec struct {
	Seed     uint64
	Strategy workload.Strategy
	// Store is where the run goes, under Name ("": the target's, as
	// harness.Store.RunName); Keep which runs stay there.
	Store string
	Name  string
	Keep  harness.Keep
	_     struct{}
}

// DefaultOptions audit for at most 15 minutes, with up to 20 seeds of
// the paused-worker test, one run at a time (a real receiver shared by
// runs at once disturbs their timing), and the batteries' defaults.
func DefaultOptions() Options {
	return Options{Battery: verify.DefaultOptions(), IssuerBattery: verify.DefaultIssuerOptions(), Seeds: 20, Parallel: 1,
		Budget: 15 * time.Minute, Store: "store"}
}
