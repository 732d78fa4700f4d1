package main

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/fencecheck/fencecheck/harness"
	"github.com/fencecheck/fencecheck/internal/redact"
	"github.com/fencecheck/fencecheck/lease"
	leasespec "github.com/fencecheck/fencecheck/lease/spec"
	"github.com/fencecheck/fencecheck/model"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/report"
	"github.com/fencecheck/fencecheck/sched"
	"github.com/fencecheck/fencecheck/workload"
)

type runFlags struct {
	target          targetFlags
	leases          string
	tokens          string
	schedule        string
	workers         int
	resources       int
	resourceNames   []string
	job             string
	shard           string
	duration        time.Duration
	ops             int
	rate            float64
	leaseTTL        time.Duration
	readShare       float64
	nemesis         string
	script          string
	seed            uint64
	policy          string
	require         []string
	minStale        int
	store           string
	name            string
	json            bool
	checkTimeout    time.Duration
	realtime        bool
	noProgress      bool
	stopOnViolation bool
	opTimeout       time.Duration
	junit           string
	noReport        bool
	seedGenerated   bool
	resourcesSet    bool
	durationSet     bool
	opTimeoutSet    bool
	scheduleSet     bool
	think           time.Duration
	thinkSet        bool

	clientStrategy  string
	leaseMultiplier float64
	renewEvery      time.Duration
	renewEverySet   bool

	metrics metricsFlags
}

func newRunCommand() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run --target SPEC",
		Short: "Run concurrent token-carrying workers against a target under faults, then check the history",
		Long: `run starts workers that take leases, carry fencing tokens and write to the
target while the nemesis injects faults; it records the history to the run
store (store/<run>/<time>/), checks it against the fenced-register model and
says which hazards the run exercised.

With a memory:// target the run is deterministic: a seeded scheduler and a
virtual clock, no real sleeps; the same --seed gives the same history, byte
for byte. --schedule pct:D has the scheduler explore with PCT's priority
schedules instead of random choices (see docs/exploration.md). --leases etcd takes leases and tokens from an embedded etcd
cluster instead (or etcd://HOST:PORT,… from yours); such a run is on the
real clock (see docs/leases.md).

SQL targets (sqlite:///path, postgres://…, mysql://…) run on the real clock
against the database: --sql-mode picks a built-in statement in a scratch
table (atomic, or check-then-set, broken on purpose), or --sql-setup,
--sql-write and --sql-read supply your own with :resource, :token and
:value; several --sql-write, a --sql-guard or --sql-isolation make the
write one transaction, and --sql-accepted says how its result reads (see
docs/sql-receivers.md).

Redis targets (redis://[user:pass@]host:port/db, rediss:// over TLS) run on
the real clock against the server, under a key prefix of their own that is
removed at the end: --redis-mode picks a built-in write (atomic, one Lua
script; watch, WATCH/MULTI/EXEC; or check-then-set, broken on purpose), or
--redis-script FILE runs your own Lua script, with KEYS[1] the resource's
key, ARGV[1] the token and ARGV[2] the value, returning 1 (accepted) or 0
(rejected) (see docs/redis-receivers.md).

Faults (--nemesis, comma-separated): pause (hold a worker after it prepared
its write until a newer owner wrote), delay (hold a write on its way to the
resource), expire (end leases early), duplicate (deliver a write twice).
With an http:// target also the proxy's faults, which act on real requests
between the workers and the receiver: hold (deliver a write late, after a
newer token was accepted), duplicate-request, drop-response (the receiver
applies the write, the worker gets no answer), latency; with --exec the
receiver process's: kill (SIGKILL, then start again), pause-receiver
(SIGSTOP, then SIGCONT); with any target reached over TCP (postgres://,
mysql://, redis://, http://) the TCP proxy's, which act on the connection's
bytes below the protocol: net-latency, net-hold (a request waits until
another connection's is answered), net-blackhole (a connection's bytes
vanish, no answer), net-reset (the receiver gets the request and answers,
the client gets a reset: the ambiguous commit; see docs/running.md); and with --leases etcd, redis or postgres the
issuer's, on the members of the embedded cluster or the private server:
issuer-kill (SIGKILL a member, the leader first, or the server, then start
it again), issuer-pause (SIGSTOP, then SIGCONT). A run with an issuer fault
is inconclusive unless a lease was granted after a server it took down came
back (see docs/leases.md).

--client-strategy replaces fencing with one of the fixes the article
reviews: none, longer-lease (leases --lease-multiplier times longer),
renew (every --renew-every), check-before-write (ask the issuer, then
write). Their workers send no token, so no receiver can reject an older
owner's write; compare-fixes runs every strategy on the same seeded
workload (see docs/fixes.md).

--metrics ADDR serves live Prometheus counters of the run at
http://ADDR/metrics while it lasts (loopback only, unless
--metrics-allow-remote): operations by outcome, stale writes, active faults
(see docs/metrics.md).`,
		Args: exactArgs(0, "no arguments"),
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
)

// noteChanged notes which flags whose defaults depend on others the user
// gave.
func (f *runFlags) noteChanged(cmd *cobra.Command) {
	fl := cmd.Flags()
	f.seedGenerated = !fl.Changed("seed")
	f.resourcesSet = fl.Changed("resources")
	f.durationSet = fl.Changed("duration")
	f.opTimeoutSet = fl.Changed("op-timeout")
	f.thinkSet = fl.Changed("think")
	f.renewEverySet = fl.Changed("renew-every")
	f.scheduleSet = fl.Changed("schedule")
}

// register adds run's flags to fl, for cmd: run takes them all; a sweep
// no --seed (its --seeds say which), --junit or --metrics (its runs are
// many); compare-fixes, which runs every strategy, takes neither
// --client-strategy, --junit nor --metrics.
func (f *runFlags) register(fl *pflag.FlagSet, cmd runCommand) {
	d := harness.DefaultConfig()
	f.target.register(fl)
	fl.StringVar(&f.leases, "leases", leasespec.Local, "where leases and tokens come from: local (in memory, deterministic with memory targets), etcd (an embedded 3-member cluster in the run directory), etcd://HOST:PORT,… (your cluster), redis[?SETTINGS] or postgres[?SETTINGS] (a private server in the run directory), redis://… or postgres://… (your server); see docs/leases.md")
	fl.StringVar(&f.tokens, "tokens", d.Tokens.String(), "the lease tokens' sequence on each resource: dense (1, 2, 3, …), sparse (jumps across 10, 100, 1000, 2^31, 2^32, 2^53 and 2^63, those up to --max-token, to find receivers that compare tokens as strings, 32-bit integers, float64 or signed 64-bit integers) or from:N (start at N); sparse and from:N need the run's own leases (see docs/running.md)")
	fl.IntVar(&f.workers, "workers", d.Workers, "concurrent workers")
	fl.IntVar(&f.resources, "resources", d.Resources, "protected resources")
	fl.StringSliceVar(&f.resourceNames, "resource-names", nil, "fixed resource names, e.g. r0,r1,r2,r3 (default: names unique to the run; your own --sql-* statements: r0 … r<resources-1>); a run starts from what fixed resources hold")
	fl.StringVar(&f.job, "job", "", "name the resources for a job of several shards: ID-r0 … ID-r<resources-1>, the same in every shard (a new ID names fresh resources)")
	fl.StringVar(&f.shard, "shard", "", "run as shard i of N (i/N, from 0/N to N-1/N) of a job: work only on the job's resources that hash to shard i, sharing --leases and --target with the other shards; needs --job or --resource-names; see docs/scale-out.md")
	fl.DurationVar(&f.duration, "duration", d.Duration, "how long workers run (virtual time for memory targets); with --ops alone, no time limit")
	fl.IntVar(&f.ops, "ops", d.Ops, "stop after this many client operations (0: no limit): the same work however fast the machine is")
	fl.Float64Var(&f.rate, "rate", d.Rate, "client operations per second, all workers together (0: unlimited)")
	fl.DurationVar(&f.leaseTTL, "lease-ttl", d.LeaseTTL, "lease duration")
	fl.Float64Var(&f.readShare, "read-share", d.ReadShare, "probability of an extra read after each job")
	fl.DurationVar(&f.think, "think", d.Think, fmt.Sprintf("mean time a worker works on a job between reading and writing (virtual time for memory targets; with another --lease-ttl: lease-ttl/%d)", d.LeaseTTL/d.Think))
	fl.StringVar(&f.nemesis, "nemesis", faultNames(d.Faults), "faults to inject: pause,delay,expire,duplicate; http: hold,duplicate-request,drop-response,latency; postgres, mysql, redis, http: net-latency,net-hold,net-blackhole,net-reset; --exec: kill,pause-receiver; --leases etcd, redis or postgres: issuer-kill,issuer-pause; or none")
	fl.StringVar(&f.script, "nemesis-script", "", `scripted fault windows instead of random ones, e.g. "500ms:+pause,2s:-pause"`)
	if cmd != cmdSweep {
		fl.Uint64Var(&f.seed, "seed", 0, "seed for every random choice (default: a random seed, printed)")
	}
	fl.StringVar(&f.schedule, "schedule", d.TaskOrder.String(), "how the deterministic simulation (memory targets) orders tasks ready at the same virtual instant: random, or pct:D, PCT's priority schedules, which find a bug that needs D ordering constraints with a probability they guarantee (see docs/exploration.md)")
	fl.StringVar(&f.policy, "policy", d.Policy.String(), "fencing policy: strict or accept-equal")
	fl.StringSliceVar(&f.require, "require", nil, "extra invariants: exclusive (no write accepted that was sent after its lease had ended on the issuer or been reassigned)")
	fl.IntVar(&f.minStale, "min-stale", d.MinStale, "exit 2 unless at least this many stale writes reached the receiver, whatever the nemesis (0: accept a run without one, and say HELD (no stale write tested))")
	fl.StringVar(&f.store, "store", d.StoreDir, "run store directory")
	fl.StringVar(&f.name, "name", "", "run name (default: derived from the target)")
	fl.BoolVar(&f.json, "json", false, "print the result as JSON")
	fl.DurationVar(&f.checkTimeout, "check-timeout", d.CheckTimeout, "give up checking after this long (exit 2)")
	fl.BoolVar(&f.realtime, "realtime", false, "run a memory target on the real clock instead of the deterministic simulation")
	fl.BoolVar(&f.noProgress, "no-progress", false, "do not show the live progress line")
	fl.DurationVar(&f.opTimeout, "op-timeout", d.OpTimeout, fmt.Sprintf("how long a worker waits for an answer before recording an unknown outcome (with another --lease-ttl: %d×lease-ttl)", d.OpTimeout/d.LeaseTTL))
	if cmd == cmdRun {
		fl.StringVar(&f.junit, "junit", "", "also write the verdict as JUnit XML to this file (one test case per checked invariant)")
		f.metrics.register(fl)
		fl.BoolVar(&f.stopOnViolation, "stop-on-violation", false, "judge the history as it is recorded and stop the run at the first violation (see docs/checking.md)")
	}
	if cmd != cmdCompare {
		fl.StringVar(&f.clientStrategy, "client-strategy", d.Strategy.String(), "what the workers rely on against an older owner: fencing (send the token), or a tempting fix that sends none: none, longer-lease, renew, check-before-write (see docs/fixes.md)")
	}
	fl.Float64Var(&f.leaseMultiplier, "lease-multiplier", d.LeaseMultiplier, "with --client-strategy longer-lease: leases last --lease-ttl times this; pauses, think time and fault windows still follow --lease-ttl")
	fl.DurationVar(&f.renewEvery, "renew-every", d.RenewEvery, fmt.Sprintf("with --client-strategy renew: how often a worker renews its lease (with another --lease-ttl: lease-ttl/%d)", d.LeaseTTL/d.RenewEvery))
	fl.BoolVar(&f.noReport, "no-report", false, "do not write report.html and the timelines into the run directory")
}

func (f *runFlags) config(t *openedTarget, faults []nemesis.Fault) (harness.Config, error) {
	policy, err := parsePolicy(f.policy)
	if err != nil {
		return harness.Config{}, err
	}
	cfg := harness.DefaultConfig()
	cfg.Target, cfg.TargetName, cfg.Terms = t.target, t.name, runTerms{}
	cfg.MaxToken = t.maxToken
	if cfg.Tokens, err = lease.ParseTokens(f.tokens); err != nil {
		return cfg, &usageError{fmt.Errorf("--tokens: %w", err)}
	}
	cfg.Workers, cfg.Resources = f.workers, f.resources
	if cfg.ResourceNames, err = f.names(); err != nil {
		return cfg, err
	}
	if cfg.Shard, err = f.parseShard(); err != nil {
		return cfg, err
	}
	cfg.Duration, cfg.Ops, cfg.Rate, cfg.ReadShare = f.duration, f.ops, f.rate, f.readShare
	cfg.SetLeaseTTL(f.leaseTTL)
	if f.opTimeoutSet {
		cfg.OpTimeout = f.opTimeout
	}
	if f.thinkSet {
		cfg.Think = f.think
	}
	if cfg.Strategy, err = workload.ParseStrategy(f.clientStrategy); err != nil {
		return cfg, &usageError{fmt.Errorf("--client-strategy: %w", err)}
	}
	cfg.LeaseMultiplier = f.leaseMultiplier
	if f.renewEverySet {
		cfg.RenewEvery = f.renewEvery
	}
	if cfg.Issuer, err = parseLeases(f.leases); err != nil {
		return cfg, err
	}
	// A real issuer runs on the real clock.
	cfg.Faults, cfg.Seed, cfg.Deterministic, cfg.Policy = faults, f.seed, t.deterministic && !f.realtime && cfg.Issuer == nil, policy
	if cfg.TaskOrder, err = f.taskOrder(t, cfg.Deterministic); err != nil {
		return cfg, err
	}
	cfg.MinStale, cfg.StoreDir, cfg.RunName, cfg.CheckTimeout, cfg.NoReport = f.minStale, f.store, f.name, f.checkTimeout, f.noReport
	if f.ops > 0 && !f.durationSet {
		cfg.Duration = 0 // --ops alone bounds the run by its work, not by time
	}
	if len(f.resourceNames) > 0 && !f.resourcesSet {
		cfg.Resources = len(f.resourceNames) // as many as there are names
	}
	if f.script != "" {
		sc, err := nemesis.ParseScript(f.script)
		if err != nil {
			return cfg, &usageError{fmt.Errorf("--nemesis-script: %w", err)}
		}
		cfg.Schedule = sc
	}
	if cfg.RequireExclusive, err = requiresExclusive(f.require); err != nil {
		return cfg, err
	}
	if err := cfg.Validate(); err != nil && cfg.Target != nil {
		return cfg, &usageError{configError(err)}
	}
	return cfg, nil
}

// taskOrder returns the run's --schedule. It orders the tasks of the
// deterministic simulation, and is refused, even as random, for a run
// that is not in it, whose tasks nothing of fencecheck's orders.
func (f *runFlags) taskOrder(t *openedTarget, deterministic bool) (sched.Order, error) {
	order, err := sched.ParseOrder(f.schedule)
	if err != nil {
		return order, &usageError{fmt.Errorf("--schedule: %w", err)}
	}
	if !f.scheduleSet || deterministic {
		return order, nil
	}
	why := t.name + " runs on the real clock"
	switch {
	case !t.deterministic:
	case f.realtime:
		why = "--realtime puts this run on the real clock"
	default:
		why = "--leases " + redact.Spec(f.leases) + " puts this run on the real clock"
	}
	return order, &usageError{fmt.Errorf("--schedule %s: orders the tasks of the deterministic simulation, which only memory:// targets run in; %s, where the Go scheduler orders them", f.schedule, why)}
}

// names returns the fixed resource names: as --resource-names gives them,
// the job's with --job, or r0 … r<n-1> for the user's own SQL statements,
// whose set-up may create exactly those rows (an UPDATE-only write needs
// them).
func (f *runFlags) names() ([]string, error) {
	switch {
	case f.job != "" && len(f.resourceNames) > 0:
		return nil, &usageError{fmt.Errorf("--job: give --job or --resource-names, not both: each names the job's resources")}
	case f.job != "":
		names, err := harness.JobResourceNames(f.job, f.resources)
		if err != nil {
			return nil, &usageError{fmt.Errorf("--job: %w", err)}
		}
		return names, nil
	case len(f.resourceNames) > 0 || !f.target.sql.own():
		return f.resourceNames, nil
	}
	names := make([]string, max(f.resources, 0))
	for i := range names {
		names[i] = fmt.Sprintf("r%d", i)
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
	if f.job == "" && len(f.resourceNames) == 0 && !f.target.sql.own() {
		return nil, &usageError{fmt.Errorf("--shard %s: needs --job ID or --resource-names, the same in every shard, so that the shards split one set of resources (names a run draws for itself are its own)", sh)}
	}
	return &sh, nil
}

func runRun(ctx context.Context, cmd *cobra.Command, f runFlags) error {
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	if f.seedGenerated {
		f.seed = randomSeed()
	}
	res, err := runOnce(ctx, cmd, f, once{progress: !f.noProgress && !f.json && isTerminal(stderr), command: func(cfg harness.Config) string {
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
	child, err := f.target.child()
	if err != nil {
		return harness.Result{}, err
	}
	faults, err := parseFaults(f.nemesis, f.target.spec, child)
	if err != nil {
		return harness.Result{}, err
	}
	policy, _ := model.ParsePolicy(f.policy) // a bad policy is reported with the configuration
	t, err := f.target.open(ctx, openWith{workers: f.workers, acceptEqual: policy == model.AcceptEqual, faults: faults, child: child})
	if err != nil {
		return harness.Result{}, err
	}
	defer t.closeWarning(stderr)
	cfg, err := f.config(t, faults)
	if err != nil {
		return harness.Result{}, err
	}
	cfg.Version, cfg.Keep = build().Version, o.keep
	cfg.Command = o.command(cfg)
	stopMetrics, err := f.metrics.start(&cfg, stderr)
	if err != nil {
		return harness.Result{}, err
	}
	defer stopMetrics()
	stopProgress := func() {}
	if o.progress {
		cfg.Progress, stopProgress = progressLine(stderr)
	}
	cfg.StopOnViolation = f.stopOnViolation
	res, err := harness.Run(ctx, cfg)
	stopProgress()
	if f.stopOnViolation && res.StoppedBecause != "" && err == nil {
		fmt.Fprintf(stderr, "fencecheck: stopped the run early: %s\n", res.StoppedBecause)
	}
	return res, err
}

// effectiveRunFlags are the flags a reproduce line of run always carries,
// with the values the run used: the --seed it drew, the workload and its
// gates as defaulted. An empty value leaves the flag out.
func effectiveRunFlags(cfg harness.Config, f runFlags) map[string]string {
	e := map[string]string{
		"workers": fmt.Sprint(cfg.Workers), "resources": fmt.Sprint(cfg.Resources), "lease-ttl": cfg.LeaseTTL.String(),
		"nemesis": f.nemesis, "seed": fmt.Sprint(cfg.Seed), "policy": f.policy, "min-stale": fmt.Sprint(cfg.MinStale),
		"tokens": cfg.Tokens.String(), "schedule": "", "duration": "", "ops": "", "leases": "", "client-strategy": "", "lease-multiplier": "", "renew-every": "",
	}
	switch cfg.Strategy {
	case workload.Fencing:
	case workload.LongerLease:
		e["lease-multiplier"] = fmt.Sprint(cfg.LeaseMultiplier)
	case workload.Renew:
		e["renew-every"] = cfg.RenewEvery.String()
	}
	if cfg.Strategy != workload.Fencing {
		e["client-strategy"] = cfg.Strategy.String()
	}
	if f.leases != leasespec.Local {
		e["leases"] = redact.Spec(f.leases)
	}
	if cfg.Deterministic {
		e["schedule"] = cfg.TaskOrder.String()
	}
	if cfg.Duration > 0 {
		e["duration"] = cfg.Duration.String()
	}
	if cfg.Ops > 0 {
		e["ops"] = fmt.Sprint(cfg.Ops)
	}
	return e
}

// faultNames is the --nemesis list of faults.
func faultNames(faults []nemesis.Fault) string {
	names := make([]string, len(faults))
	for i, f := range faults {
		names[i] = f.Name()
	}
	return strings.Join(names, ",")
}

func randomSeed() uint64 {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return uint64(time.Now().UnixNano())
	}
	return binary.LittleEndian.Uint64(b[:]) >> 1
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// progressLine shows a live status line on a terminal.
func progressLine(w io.Writer) (func(harness.Progress), func()) {
	describe, stop := spinner(w)
	update := func(p harness.Progress) {
		describe(fmt.Sprintf("%v/%v  ops %d  accepted %d  rejected %d  unknown %d",
			p.Elapsed.Round(time.Millisecond), p.Duration, p.Ops, p.Accepted, p.Rejected, p.Unknown))
	}
	return update, stop
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
