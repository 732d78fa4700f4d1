package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/fencecheck/fencecheck/explore"
	"github.com/fencecheck/fencecheck/harness"
	"github.com/fencecheck/fencecheck/internal/redact"
	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/lease"
	leasespec "github.com/fencecheck/fencecheck/lease/spec"
	"github.com/fencecheck/fencecheck/model"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/report"
	"github.com/fencecheck/fencecheck/sched"
	targetspec "github.com/fencecheck/fencecheck/targets/spec"
	"github.com/fencecheck/fencecheck/workload"
)

// runFlags are the flags of run, and of the commands that make runs as
// it does (sweep, compare-fixes).
type runFlags struct {
	target                                                targetFlags
	leases, tokens, schedule, job, shard, nemesis, script string
	policy, store, name, junit, clientStrategy            string
	workers, resources, ops, minStale, calibrate          int
	resourceNames, require                                []string
	duration, leaseTTL, think, opTimeout, checkTimeout    time.Duration
	renewEvery, clockSkew                                 time.Duration
	rate, readShare, leaseMultiplier, burst               float64
	burstSize                                             int
	seed                                                  uint64
	json, realtime, noProgress, stopOnViolation, noReport bool
	metrics                                               metricsFlags
	// The flags whose defaults depend on others, as given or not
	// (noteChanged), and seedGenerated: no --seed.
	seedGenerated, resourcesSet, durationSet, opTimeoutSet bool
	scheduleSet, thinkSet, renewEverySet                   bool
}

func newRunCommand() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run --target SPEC",
		Short: "Run concurrent token-carrying workers against a target under faults, then check the history",
		Long:  help("run"),
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			f.noteChanged(cmd)
			return f.target.scrub(runRun(cmd.Context(), cmd, f))
		},
	}
	f.register(cmd.Flags(), cmdRun)
	return cmd
}

// runCommand is a command that makes runs with run's flags.
type runCommand int

const (
	cmdRun     runCommand = iota // run: one run
	cmdCompare                   // compare-fixes: one run per client strategy
	cmdSweep                     // sweep: one run per seed
	cmdAudit                     // audit: batteries, a sweep and the fixes
)

// noteChanged notes which flags whose defaults depend on others the user
// gave.
func (f *runFlags) noteChanged(cmd *cobra.Command) {
	fl := cmd.Flags()
	f.seedGenerated = !fl.Changed("seed")
	f.resourcesSet = fl.Changed("resources")
	f.durationSet = fl.Changed("duration")
	f.opTimeoutSet = fl.Changed("op-timeout")
	f.thinkSet, f.renewEverySet = fl.Changed("think"), fl.Changed("renew-every")
	f.scheduleSet = fl.Changed("schedule")
}

// register adds run's flags to fl, for cmd: run takes them all; a sweep
// no --seed (its --seeds say which), --junit or --metrics (its runs are
// many); compare-fixes, which runs every strategy, takes neither
// --client-strategy, --junit nor --metrics.
func (f *runFlags) register(fl *pflag.FlagSet, cmd runCommand) {
	d := harness.DefaultConfig()
	f.target.register(fl)
	fl.StringVar(&f.leases, "leases", leasespec.Local, "where leases and tokens come from: local (in memory, deterministic with memory targets), etcd (an embedded 3-member cluster in the run directory), etcd://HOST:PORT,… (your cluster), redis[?SETTINGS], postgres[?SETTINGS], nats[?sync=always] or zookeeper (a private server in the run directory), redis://…, postgres://…, nats://… or zookeeper://… (your server); see docs/leases.md")
	fl.StringVar(&f.tokens, "tokens", d.Leases.Tokens.String(), "the lease tokens' sequence on each resource: dense (1, 2, 3, …), sparse (jumps across 10, 100, 1000, 2^31, 2^32, 2^53 and 2^63, those up to --max-token, to find receivers that compare tokens as strings, 32-bit integers, float64 or signed 64-bit integers) or from:N (start at N); sparse and from:N need the run's own leases (see docs/running.md)")
	fl.IntVar(&f.workers, "workers", d.Workload.Workers, "concurrent workers")
	fl.IntVar(&f.resources, "resources", d.Workload.Resources, "protected resources")
	fl.StringSliceVar(&f.resourceNames, "resource-names", nil, "fixed resource names, e.g. r0,r1,r2,r3 (default: names unique to the run; your own --sql-* statements: r0 … r<resources-1>); a run starts from what fixed resources hold")
	fl.StringVar(&f.job, "job", "", "name the resources for a job of several shards: ID-r0 … ID-r<resources-1>, the same in every shard (a new ID names fresh resources)")
	fl.StringVar(&f.shard, "shard", "", "run as shard i of N (i/N, from 0/N to N-1/N) of a job: work only on the job's resources that hash to shard i, sharing --leases and --target with the other shards; needs --job or --resource-names; see docs/scale-out.md")
	fl.DurationVar(&f.duration, "duration", d.Workload.Duration, "how long workers run (virtual time for memory targets); with --ops alone, no time limit")
	fl.IntVar(&f.ops, "ops", d.Workload.Ops, "stop after this many client operations (0: no limit): the same work however fast the machine is")
	fl.Float64Var(&f.rate, "rate", d.Workload.Rate, "client operations per second, all workers together (0: unlimited)")
	fl.DurationVar(&f.leaseTTL, "lease-ttl", d.Leases.TTL, "lease duration")
	fl.Float64Var(&f.readShare, "read-share", d.Workload.ReadShare, "probability of an extra read after each job")
	fl.Float64Var(&f.burst, "burst", d.Workload.Burst.Share, "probability that a job starts a contention burst while a fault that makes stale writes is on: writes with adjacent tokens sent to one resource at once, where a receiver that checks the token and writes in two steps fails (0: none; see docs/running.md)")
	fl.IntVar(&f.burstSize, "burst-size", d.Workload.Burst.Size, "the most writes a contention burst gathers (each burst draws 2 to this many)")
	fl.DurationVar(&f.think, "think", d.Workload.Think, fmt.Sprintf("mean time a worker works on a job between reading and writing (virtual time for memory targets; with another --lease-ttl: lease-ttl/%d)", d.Leases.TTL/d.Workload.Think))
	fl.StringVar(&f.nemesis, "nemesis", strings.Join(nemesis.NamesOf(d.Nemesis.Faults), ","), "faults to inject: pause,delay,expire,duplicate; http: hold,duplicate-request,drop-response,latency; postgres, mysql, redis, nats, http: net-latency,net-hold,net-blackhole,net-reset; --exec or --target nats: kill,pause-receiver; --leases etcd, redis, postgres or nats: issuer-kill,issuer-pause; --leases redis: issuer-clock; --leases redis?replicas=1: issuer-failover; --leases etcd: issuer-restore,issuer-restore-bumped; or none")
	fl.StringVar(&f.script, "nemesis-script", "", `scripted fault windows instead of random ones, e.g. "500ms:+pause,2s:-pause"`)
	if cmd != cmdSweep && cmd != cmdAudit {
		fl.Uint64Var(&f.seed, "seed", 0, "seed for every random choice (default: a random seed, printed)")
	}
	fl.StringVar(&f.schedule, "schedule", d.Runtime.TaskOrder.String(), "how the deterministic simulation (memory targets) orders tasks ready at the same virtual instant: random, or pct:D, PCT's priority schedules, which find a bug that needs D ordering constraints with a probability they guarantee (see docs/exploration.md)")
	fl.StringVar(&f.policy, "policy", d.Gates.Policy.String(), "fencing policy: strict or accept-equal")
	fl.StringSliceVar(&f.require, "require", nil, "extra invariants: exclusive (no write accepted that was sent after its lease had ended on the issuer or been reassigned)")
	fl.IntVar(&f.minStale, "min-stale", d.Gates.MinStale, "exit 2 unless at least this many stale writes reached the receiver, whatever the nemesis (0: accept a run without one, and say HELD (no stale write tested))")
	fl.StringVar(&f.store, "store", d.Store.Dir, "run store directory")
	fl.StringVar(&f.name, "name", "", "run name (default: derived from the target)")
	fl.BoolVar(&f.json, "json", false, "print the result as JSON")
	fl.DurationVar(&f.checkTimeout, "check-timeout", d.Gates.CheckTimeout, "give up checking after this long (exit 2)")
	fl.BoolVar(&f.realtime, "realtime", false, "run a memory target on the real clock instead of the deterministic simulation")
	fl.BoolVar(&f.noProgress, "no-progress", false, "do not show the live progress line")
	fl.DurationVar(&f.opTimeout, "op-timeout", d.Workload.OpTimeout, fmt.Sprintf("how long a worker waits for an answer before recording an unknown outcome (with another --lease-ttl: %d×lease-ttl)", d.Workload.OpTimeout/d.Leases.TTL))
	if cmd == cmdRun {
		fl.StringVar(&f.junit, "junit", "", "also write the verdict as JUnit XML to this file (one test case per checked invariant)")
		f.metrics.register(fl)
		fl.BoolVar(&f.stopOnViolation, "stop-on-violation", false, "judge the history as it is recorded and stop the run at the first violation (see docs/checking.md)")
	}
	if cmd == cmdRun || cmd == cmdSweep {
		fl.IntVar(&f.calibrate, "calibrate", 0, fmt.Sprintf("also run this configuration against twins of the target with planted bugs, this many runs each (--calibrate alone: %d), and state how likely the pass was to catch each (see docs/exploration.md)", explore.DefaultCalibrationRuns))
		fl.Lookup("calibrate").NoOptDefVal = fmt.Sprint(explore.DefaultCalibrationRuns)
	}
	if cmd != cmdCompare && cmd != cmdAudit {
		fl.StringVar(&f.clientStrategy, "client-strategy", d.Workload.Strategy.String(), "what the workers rely on against an older owner: fencing (send the token), or a tempting fix that sends none: none, longer-lease, renew, check-before-write (see docs/fixes.md)")
	}
	fl.Float64Var(&f.leaseMultiplier, "lease-multiplier", d.Workload.LeaseMultiplier, "with --client-strategy longer-lease: leases last --lease-ttl times this; pauses, think time and fault windows still follow --lease-ttl")
	fl.DurationVar(&f.renewEvery, "renew-every", d.Workload.RenewEvery, fmt.Sprintf("with --client-strategy renew: how often a worker renews its lease (with another --lease-ttl: lease-ttl/%d)", d.Leases.TTL/d.Workload.RenewEvery))
	fl.DurationVar(&f.clockSkew, "clock-skew", 0, "how far the workers' clocks run behind the issuer's: a worker believes its lease has this much more time left (renew times its renewals by it; see docs/fixes.md)")
	fl.BoolVar(&f.noReport, "no-report", false, "do not write report.html and the timelines into the run directory")
}

func (f *runFlags) config(t *targetspec.Target, faults []nemesis.Fault) (harness.Config, error) {
	policy, err := parsePolicy(f.policy)
	if err != nil {
		return harness.Config{}, err
	}
	cfg := harness.DefaultConfig()
	scheme, _, _ := strings.Cut(f.target.spec, "://")
	terms := runTerms{exec: scheme == "http" || scheme == "https", process: f.target.exec.command != ""}
	cfg.Target.Receiver, cfg.Target.Name, cfg.Output.Terms, cfg.Target.MaxToken = t.Target, t.Name, terms, t.MaxToken
	if cfg.Leases.Tokens, err = lease.ParseTokens(f.tokens); err != nil {
		return cfg, &usageError{fmt.Errorf("--tokens: %w", err)}
	}
	cfg.Workload.Workers, cfg.Workload.Resources = f.workers, f.resources
	if cfg.Workload.ResourceNames, err = f.names(); err != nil {
		return cfg, err
	}
	if cfg.Workload.Shard, err = f.parseShard(); err != nil {
		return cfg, err
	}
	cfg.Workload.Duration, cfg.Workload.Ops, cfg.Workload.Rate, cfg.Workload.ReadShare = f.duration, f.ops, f.rate, f.readShare
	cfg.SetLeaseTTL(f.leaseTTL)
	cfg.Workload.Burst.Share, cfg.Workload.Burst.Size = f.burst, f.burstSize
	if f.opTimeoutSet {
		cfg.Workload.OpTimeout = f.opTimeout
	}
	if f.thinkSet {
		cfg.Workload.Think = f.think
	}
	if cfg.Workload.Strategy, err = workload.ParseStrategy(f.clientStrategy); err != nil {
		return cfg, &usageError{fmt.Errorf("--client-strategy: %w", err)}
	}
	cfg.Workload.LeaseMultiplier, cfg.Workload.ClockSkew = f.leaseMultiplier, f.clockSkew
	if f.renewEverySet {
		cfg.Workload.RenewEvery = f.renewEvery
	}
	if cfg.Leases.Issuer, err = parseLeases(f.leases); err != nil {
		return cfg, err
	}
	// A real issuer runs on the real clock.
	cfg.Nemesis.Faults, cfg.Runtime.Seed, cfg.Runtime.Deterministic, cfg.Gates.Policy = faults, f.seed, t.Deterministic && !f.realtime && cfg.Leases.Issuer == nil, policy
	if cfg.Runtime.TaskOrder, err = f.taskOrder(t, cfg.Runtime.Deterministic); err != nil {
		return cfg, err
	}
	cfg.Gates.MinStale, cfg.Store.Dir, cfg.Store.RunName, cfg.Gates.CheckTimeout, cfg.Store.NoReport = f.minStale, f.store, f.name, f.checkTimeout, f.noReport
	if f.ops > 0 && !f.durationSet {
		cfg.Workload.Duration = 0 // --ops alone bounds the run by its work, not by time
	}
	if len(f.resourceNames) > 0 && !f.resourcesSet {
		cfg.Workload.Resources = len(f.resourceNames) // as many as there are names
	}
	if f.script != "" {
		sc, err := nemesis.ParseScript(f.script)
		if err != nil {
			return cfg, &usageError{fmt.Errorf("--nemesis-script: %w", err)}
		}
		cfg.Nemesis.Schedule = sc
	}
	if cfg.Gates.RequireExclusive, err = requiresExclusive(f.require); err != nil {
		return cfg, err
	}
	if err := cfg.Validate(); err != nil && cfg.Target.Receiver != nil {
		return cfg, &usageError{configError(err)}
	}
	return cfg, nil
}

// taskOrder returns the run's --schedule. It orders the tasks of the
// deterministic simulation, and is refused, even as random, for a run
// that is not in it, whose tasks nothing of fencecheck's orders.
func (f *runFlags) taskOrder(t *targetspec.Target, deterministic bool) (sched.Order, error) {
	order, err := sched.ParseOrder(f.schedule)
	if err != nil {
		return order, &usageError{fmt.Errorf("--schedule: %w", err)}
	}
	if !f.scheduleSet || deterministic {
		return order, nil
	}
	why := t.Name + " runs on the real clock"
	switch {
	case !t.Deterministic:
	case f.realtime:
		why = "--realtime puts this run on the real clock"
	default:
		why = "--leases " + redact.Spec(f.leases) + " puts this run on the real clock"
	}
	return order, &usageError{fmt.Errorf("--schedule %s: orders the tasks of the deterministic simulation, which only memory:// targets run in; %s, where the Go scheduler orders them", f.schedule, why)}
}

// naming says how the run's flags name its resources: --resource-names,
// --job, or numbered for the user's own SQL statements, whose set-up may
// create exactly those rows.
func (f *runFlags) naming() harness.Naming {
	return harness.Naming{Names: f.resourceNames, Job: f.job, Numbered: f.target.sql.writesOwn()}
}

// names returns the fixed resource names the flags give, or nil.
func (f *runFlags) names() ([]string, error) {
	if f.job != "" && len(f.resourceNames) > 0 {
		return nil, &usageError{fmt.Errorf("--job: give --job or --resource-names, not both: each names the job's resources")}
	}
	names, err := f.naming().ResourceNames(f.resources)
	if err != nil {
		return nil, &usageError{fmt.Errorf("--job: %w", err)}
	}
	return names, nil
}

// parseShard returns the run's --shard, or nil. A shard needs the job's
// resource names, the same in every shard: names a run draws for itself
// are its own.
func (f *runFlags) parseShard() (*harness.Shard, error) {
	if f.shard == "" {
		return nil, nil
	}
	sh, err := harness.ParseShard(f.shard)
	if err != nil {
		return nil, &usageError{fmt.Errorf("--shard: %w", err)}
	}
	if !f.naming().Fixed() {
		return nil, &usageError{fmt.Errorf("--shard %s: needs --job ID or --resource-names, the same in every shard, so that the shards split one set of resources (names a run draws for itself are its own)", sh)}
	}
	return &sh, nil
}

func runRun(ctx context.Context, cmd *cobra.Command, f runFlags) error {
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	if f.seedGenerated {
		f.seed = harness.RandomSeed()
	}
	cal, err := f.measureTwins(ctx, cmd)
	if err != nil {
		return err
	}
	res, err := runOnce(ctx, cmd, f, once{calibration: cal, progress: !f.noProgress && !f.json && isTerminal(stderr), command: func(cfg harness.Config) string {
		return reproduceLine(cmd, effectiveRunFlags(cfg, f))
	}})
	if err != nil {
		return err
	}
	if f.junit != "" {
		if err := report.WriteJUnitFile(f.junit, res.JUnit()); err != nil {
			return err
		}
	}
	if err := printResult(stdout, f.json, res, res.Summary); err != nil {
		return err
	}
	warn(stderr, res.Warnings)
	return exitFor(res.Verdict)
}

// once is how runOnce makes its run, besides the flags.
type once struct {
	progress bool                        // a live progress line on stderr
	command  func(harness.Config) string // the line that repeats the run
	keep     harness.Keep                // which runs are stored
	// twin, if set, is the target instead of the flags' (calibrate.go);
	// calibration what the twins measured, for the run to state.
	twin        *targetspec.Twin
	calibration *judge.Calibration
}

// runOnce makes the run f describes, as o says.
func runOnce(ctx context.Context, cmd *cobra.Command, f runFlags, o once) (harness.Result, error) {
	stderr := cmd.ErrOrStderr()
	if err := f.target.required(); err != nil {
		return harness.Result{}, err
	}
	if err := f.metrics.check(); err != nil {
		return harness.Result{}, err
	}
	faults, s, err := f.faults()
	if o.twin != nil && err == nil {
		s = o.twin.Spec
		faults, _, err = o.twin.Faults(f.nemesis)
	}
	if err != nil {
		return harness.Result{}, err
	}
	t, err := s.Open(ctx, faults)
	if err != nil {
		return harness.Result{}, usage(err)
	}
	defer closeTarget(t, stderr)
	cfg, err := f.config(t, faults)
	if err != nil {
		return harness.Result{}, err
	}
	cfg.Output.Version, cfg.Store.Keep, cfg.Output.Calibration = build().Version, o.keep, o.calibration
	cfg.Output.Command = o.command(cfg)
	stopMetrics, err := f.metrics.start(&cfg, stderr)
	if err != nil {
		return harness.Result{}, err
	}
	defer stopMetrics()
	stopProgress := func() {}
	if o.progress {
		cfg.Output.Progress, stopProgress = progressLine[harness.Progress](stderr)
	}
	cfg.Gates.StopOnViolation = f.stopOnViolation
	res, err := harness.Run(ctx, cfg)
	stopProgress()
	if f.stopOnViolation && res.StoppedBecause != "" && err == nil {
		fmt.Fprintf(stderr, "fencecheck: stopped the run early: %s\n", res.StoppedBecause)
	}
	return res, err
}

// faults reads the target flags and --nemesis: the run's faults, and the
// spec that opens the target behind the proxies they act in.
func (f *runFlags) faults() ([]nemesis.Fault, *targetspec.Spec, error) {
	policy, _ := model.ParsePolicy(f.policy) // a bad policy is reported with the configuration
	s, err := f.target.parse(f.workers, policy == model.AcceptEqual)
	if err != nil {
		return nil, nil, err
	}
	faults, err := s.ParseFaults(f.nemesis)
	return faults, s, usage(err)
}

// effectiveRunFlags are the flags a reproduce line of run always carries,
// with the values the run used (harness.Config.EffectiveSettings, each
// by its flag), and --nemesis, --policy and --leases as given. An empty
// value leaves the flag out.
func effectiveRunFlags(cfg harness.Config, f runFlags) map[string]string {
	e := map[string]string{"nemesis": f.nemesis, "policy": f.policy, "leases": ""}
	for field, v := range cfg.EffectiveSettings() {
		e[fieldFlags[field]] = v
	}
	if f.leases != leasespec.Local {
		e["leases"] = redact.Spec(f.leases)
	}
	return e
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// progressLine shows a live status line on a terminal: update shows a
// new status as the library words it, stop clears the line.
func progressLine[P fmt.Stringer](w io.Writer) (update func(P), stop func()) {
	describe, stop := spinner(w)
	return func(p P) { describe(p.String()) }, stop
}

// spinner is a live status line on a terminal: describe shows a new
// status, stop clears the line.
func spinner(w io.Writer) (describe func(string), stop func()) {
	bar := progressbar.NewOptions(-1,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSpinnerType(14),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionSetDescription("starting"),
	)
	describe = func(status string) {
		bar.Describe(status)
		_ = bar.Add(0)
	}
	return describe, func() { _ = bar.Finish() }
}
