package harness

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/fencecheck/fencecheck/check"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/internal/termsafe"
	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/lease"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/report"
	"github.com/fencecheck/fencecheck/runstore"
	"github.com/fencecheck/fencecheck/targets"
	"github.com/fencecheck/fencecheck/workload"
)

// Result is what a run concluded: the judgement of its history
// (judge.Report), and what the run was. It is written to result.json,
// whose judgement fields are those of fencecheck check --json.
type Result struct {
	// Format is the version of result.json's format,
	// runstore.ResultFormat.
	Format int `json:"format"`
	judge.Report
	// Jobs is what the workers' strategy cost them: job latency and the
	// leases taken from live workers (workload.Metrics).
	Jobs        workload.Metrics `json:"job_metrics"`
	Config      RunConfig        `json:"config"`
	Dir         string           `json:"dir"`
	Started     time.Time        `json:"started"`
	Elapsed     time.Duration    `json:"elapsed_ns"`
	Interrupted bool             `json:"interrupted,omitempty"`
	// StoppedBecause is why an interrupted run was stopped, when whoever
	// cancelled its context said (context.Cause): "interrupt signal
	// received", or the violation that run --stop-on-violation found.
	StoppedBecause string `json:"stopped_because,omitempty"`
	Truncated      bool   `json:"history_truncated,omitempty"`
	// Warnings are what went wrong around the run without touching its
	// verdict: a tear-down that left a table or a process behind.
	Warnings []string `json:"warnings,omitempty"`
	// Calibration is Config.Output.Calibration for this run: how likely
	// it was to catch each twin; nil without.
	Calibration *judge.Calibration `json:"calibration,omitempty"`

	history *histories.History // the checked history, for the report
	words   Terms              // Config.Output.Terms, for the summary and the report
}

// calibrated are the calibration's sentences for a run that did not
// violate: the twins' measure and the chance this run had of catching
// each.
func (res *Result) calibrated() []string {
	c := res.Calibration
	if c == nil || res.Verdict == judge.Violated {
		return nil
	}
	return c.Sentences("this run")
}

// terms are the words for settings the run's caller chose, else Config's.
func (res *Result) terms() Terms {
	if res.words != nil {
		return res.words
	}
	return ConfigTerms{}
}

// RunConfig is the part of the configuration needed to reproduce a run.
type RunConfig struct {
	Target string `json:"target"`
	// Leases names the token issuer (Config.Leases.Issuer); empty for the run's
	// own lease service.
	Leases    string   `json:"leases,omitempty"`
	Workers   int      `json:"workers"`
	Resources int      `json:"resources"`
	Duration  string   `json:"duration"`
	Ops       int      `json:"ops"`
	Rate      float64  `json:"rate"`
	LeaseTTL  string   `json:"lease_ttl"`
	Faults    []string `json:"nemesis"`
	// Schedule is when the faults act: "random windows every 300ms, up to
	// 400ms", or a script as Config.Nemesis.Schedule's parser reads it.
	Schedule string `json:"schedule,omitempty"`
	// ReadShare, RepeatShare, Think and OpTimeout are the workers'
	// (Config.Workload).
	ReadShare   float64 `json:"read_share"`
	RepeatShare float64 `json:"repeat_share"`
	Think       string  `json:"think"`
	OpTimeout   string  `json:"op_timeout"`
	// BurstShare and BurstSize are the workers' contention bursts
	// (Config.Workload.Burst); absent when there are none.
	BurstShare    float64 `json:"burst_share,omitempty"`
	BurstSize     int     `json:"burst_size,omitempty"`
	Seed          uint64  `json:"seed"`
	Deterministic bool    `json:"deterministic"`
	// TaskOrder is the deterministic scheduler's order when it is not
	// the default random one (Config.Runtime.TaskOrder): "pct:2".
	TaskOrder string `json:"task_order,omitempty"`
	// VirtualClock: the run was on a synctest bubble's clock
	// (Config.Runtime.VirtualClock).
	VirtualClock     bool   `json:"virtual_clock,omitempty"`
	Policy           string `json:"policy"`
	RequireExclusive bool   `json:"require_exclusive"`
	MinStale         int    `json:"min_stale"`
	StopOnViolation  bool   `json:"stop_on_violation,omitempty"`
	CheckTimeout     string `json:"check_timeout"`
	ShrinkTimeout    string `json:"shrink_timeout"`
	// Latency is the delay simulated around each call of a run on a
	// virtual clock (Config.Runtime.Latency); absent on the real clock.
	Latency  string `json:"latency,omitempty"`
	NoReport bool   `json:"no_report,omitempty"`
	Version  string `json:"version"`
	// ClientStrategy is the workers' strategy (Config.Workload.Strategy);
	// LeaseMultiplier and RenewEvery are given only for the strategies
	// that use them, and IssuedTTL for a strategy that changes it.
	ClientStrategy  string  `json:"client_strategy"`
	LeaseMultiplier float64 `json:"lease_multiplier,omitempty"`
	IssuedTTL       string  `json:"issued_lease_ttl,omitempty"`
	RenewEvery      string  `json:"renew_every,omitempty"`
	// ClockSkew is Config.Workload.ClockSkew, absent when zero.
	ClockSkew string `json:"clock_skew,omitempty"`
	// Tokens is the lease tokens' sequence (Config.Leases.Tokens: dense, sparse,
	// from:N); MaxToken the largest token the run could send, the
	// receiver's token domain (Config.Target.MaxToken and the target's).
	Tokens   string `json:"tokens"`
	MaxToken uint64 `json:"max_token"`
	// Command repeats the run (Config.Output.Command).
	Command string `json:"command,omitempty"`
	// RunID names the run's resources or, with fixed resource names, its
	// values; ResourceNames are the resources.
	RunID         string   `json:"run_id"`
	ResourceNames []string `json:"resource_names"`
	FixedNames    bool     `json:"fixed_resource_names,omitempty"`
	// Shard is "i/N" when the run was shard i of a job of N (Config.Workload.Shard):
	// ResourceNames are then the resources it owned, and Resources the
	// job's.
	Shard string `json:"shard,omitempty"`

	crossed       []uint64      // the boundaries the tokens' sequence crosses
	judged        judge.Options // what the run's history was judged with
	issuerFaults  []string      // the faults that take the issuer's servers down
	issuerServers bool          // the issuer had servers to take down
	issuerReplica bool          // the issuer had a replica to fail over to
	restorable    bool          // the issuer could be restored from a snapshot (lease.Restorer)
}

// Clock says what clock the run was on, in a word or two:
// deterministic, virtual time, real time.
func (c *RunConfig) Clock() string { return c.mode(false) }

// mode says what clock the run was on, at length for the report.
func (c *RunConfig) mode(long bool) string {
	switch {
	case c.Deterministic && long && c.TaskOrder != "":
		return "deterministic (seeded scheduler in " + c.TaskOrder + " order, virtual clock)"
	case c.Deterministic && long:
		return "deterministic (seeded scheduler, virtual clock)"
	case c.Deterministic && c.TaskOrder != "":
		return "deterministic, " + c.TaskOrder
	case c.Deterministic:
		return "deterministic"
	case c.VirtualClock && long:
		return "virtual time (a synctest bubble's clock, one task at a time)"
	case c.VirtualClock:
		return "virtual time"
	}
	return "real time"
}

func (c *Config) summary(runID string, resources []string) RunConfig {
	var faults []string
	for _, f := range c.Nemesis.Faults {
		faults = append(faults, f.Name())
	}
	shard := ""
	if c.Workload.Shard != nil {
		shard = c.Workload.Shard.String()
	}
	rc := RunConfig{
		Shard: shard, Target: c.Target.Name, Leases: c.issuerName(), Workers: c.Workload.Workers, Resources: c.Workload.Resources, Duration: c.Workload.Duration.String(),
		Ops: c.Workload.Ops, Rate: c.Workload.Rate, LeaseTTL: c.Leases.TTL.String(), Faults: faults, Seed: c.Runtime.Seed,
		Deterministic: c.Runtime.Deterministic, VirtualClock: c.Runtime.VirtualClock, Policy: c.Gates.Policy.String(), RequireExclusive: c.Gates.RequireExclusive,
		MinStale: c.Gates.MinStale, NoReport: c.Store.NoReport, Version: c.Output.Version,
		Command: c.Output.Command, RunID: runID, ResourceNames: resources, FixedNames: len(c.Workload.ResourceNames) > 0,
		ClientStrategy: c.Workload.Strategy.String(), Tokens: c.Leases.Tokens.String(), MaxToken: c.domain(), crossed: c.Leases.Tokens.Crossed(c.domain()),
		issuerFaults: issuerFaults(c.Nemesis.Faults),
		ReadShare:    c.Workload.ReadShare, RepeatShare: c.Workload.RepeatShare, Think: c.Workload.Think.String(), OpTimeout: c.Workload.OpTimeout.String(),
		StopOnViolation: c.Gates.StopOnViolation, CheckTimeout: c.Gates.CheckTimeout.String(), ShrinkTimeout: c.Gates.ShrinkTimeout.String(),
	}
	if s, ok := c.Nemesis.Schedule.(fmt.Stringer); ok && len(c.Nemesis.Faults) > 0 {
		rc.Schedule = s.String()
	}
	if c.Workload.Burst.On() && c.Workload.Strategy.Fences() {
		rc.BurstShare, rc.BurstSize = c.Workload.Burst.Share, c.Workload.Burst.Size
	}
	if c.simulatesLatency() {
		rc.Latency = c.Runtime.Latency.String()
	}
	if c.Runtime.Deterministic && !c.Runtime.TaskOrder.IsRandom() {
		rc.TaskOrder = c.Runtime.TaskOrder.String()
	}
	switch c.Workload.Strategy {
	case workload.LongerLease:
		rc.LeaseMultiplier, rc.IssuedTTL = c.Workload.LeaseMultiplier, c.IssuedTTL().String()
	case workload.Renew:
		rc.RenewEvery = c.Workload.RenewEvery.String()
	}
	if c.Workload.ClockSkew > 0 {
		rc.ClockSkew = c.Workload.ClockSkew.String()
	}
	return rc
}

// judge reads the recorded history back and judges it. Reading the
// recorded bytes (the file, or under KeepViolations the same bytes in
// memory) rather than the events as the workers made them judges exactly
// what a user would re-check later with fencecheck check.
func (r *run) judge(st *storage, stopped error) (Result, error) {
	h, err := st.read()
	if err != nil {
		return Result{}, fmt.Errorf("read back the recorded history: %w", err)
	}
	o := r.cfg.judgeOptions()
	o.ReceiverLog, o.Stopped = r.receiverLog, stopped
	// An interrupted run is judged all the same, on what it recorded: the
	// judgement does not share the run's context.
	rep, err := judge.Judge(context.Background(), h, o)
	if err != nil {
		return Result{}, fmt.Errorf("judge the recorded history: %w", err)
	}
	res := Result{Format: runstore.ResultFormat, Report: rep, Config: r.cfg.summary(r.runID, r.resources), Truncated: h.Truncated,
		Interrupted: stopped != nil, history: h, words: r.cfg.Output.Terms, Jobs: r.measureStrategy(h)}
	if stopped != nil && stopped != context.Canceled { // a bare cancel says nothing more than Interrupted
		res.StoppedBecause = stopped.Error()
	}
	res.Config.issuerServers, res.Config.issuerReplica, res.Config.restorable, res.Config.judged = r.issuerServers, r.issuerReplica, r.restorable, o
	return res, nil
}

// judgeOptions are the judgement's options for a run of c: its policy,
// check and shrink bounds, its gates, and the faults that say why a run
// made no stale write or did not test a failover.
func (c *Config) judgeOptions() judge.Options {
	o := judge.DefaultOptions()
	o.Check = check.Options{Policy: c.Gates.Policy, Timeout: c.Gates.CheckTimeout}
	o.ShrinkTimeout, o.MinStale, o.RequireExclusive = c.Gates.ShrinkTimeout, c.Gates.MinStale, c.Gates.RequireExclusive
	o.IssuerFaults = issuerFaults(c.Nemesis.Faults)
	for _, f := range c.Nemesis.Faults {
		if _, ok := f.(nemesis.StaleWriter); ok {
			o.StaleFaults = append(o.StaleFaults, f.Name())
		}
		if _, ok := f.(*nemesis.Kill); ok {
			o.CrashFaults = append(o.CrashFaults, f.Name())
		}
	}
	return o
}

// Summary renders the result for people; it is summary.txt and the end of
// fencecheck run's output.
func (res *Result) Summary() string {
	var b strings.Builder
	c, cov, cfg := res.Counts, res.Coverage, res.Config
	mode := cfg.mode(false)
	fmt.Fprintf(&b, "run         %s\n", res.Dir)
	if cfg.Leases != "" {
		mode += ", tokens from " + cfg.Leases
	}
	fmt.Fprintf(&b, "target      %s (%s, seed %d)\n", cfg.Target, mode, cfg.Seed)
	fmt.Fprintf(&b, "workload    %d workers, %s, %s, lease TTL %s, nemesis %s\n", cfg.Workers, cfg.resourcesSummary(),
		workloadLength(cfg), cfg.LeaseTTL, faultList(cfg.Faults))
	if cfg.Tokens != lease.Dense().String() || cfg.MaxToken != math.MaxUint64 {
		across := ""
		if len(cfg.crossed) > 0 {
			names := make([]string, len(cfg.crossed))
			for i, t := range cfg.crossed {
				names[i] = targets.TokenName(t)
			}
			across = " across " + strings.Join(names, ", ")
		}
		fmt.Fprintf(&b, "tokens      %s%s, none above %s, the largest the receiver stores\n", cfg.Tokens, across, targets.TokenName(cfg.MaxToken))
	}
	fmt.Fprintf(&b, "operations  %d: %d writes (%d accepted, %d rejected, %d unknown, %d failed), %d reads (%d unknown)\n",
		c.Operations, c.Writes, c.Accepted, c.Rejected, c.UnknownWrites, c.FailedWrites, c.Reads, c.UnknownReads)
	fmt.Fprintf(&b, "exercised   %d stale writes (%d rejected, %d accepted, %d unknown); %d equal-token repeats (%d accepted);\n",
		cov.StaleWrites, cov.StaleRejected, cov.StaleAccepted, cov.StaleUnknown, cov.EqualTokenRepeats, cov.EqualTokenAccepted)
	fmt.Fprintf(&b, "            %d old tokens accepted before the newer one arrived (allowed by fencing); %d concurrent writes on one resource;\n",
		cov.OldTokenFirst, cov.ConcurrentWrites)
	crashes := fmt.Sprintf("%d receiver crashes", cov.Crashes)
	if cov.Crashes > 0 {
		crashes += fmt.Sprintf(" (%d stale writes answered after one)", cov.StaleAfterCrash)
	}
	fmt.Fprintf(&b, "            %d unknown outcomes; %s;\n", cov.UnknownOutcomes, crashes)
	fmt.Fprintf(&b, "            %d lease grants, %d expiries; fault actions %s\n", cov.LeaseGrants, cov.LeaseExpiries, actionList(cov.FaultActions))
	if len(cfg.issuerFaults) > 0 {
		fmt.Fprintf(&b, "            %d issuer leader changes; %d lease grants after a server the issuer faults took down came back\n",
			cov.LeaderChanges, cov.GrantsAfterFailover)
	}
	if cfg.ClientStrategy != workload.Fencing.String() {
		writeStrategy(&b, cfg, res.Jobs)
	}
	if cov.InitialStates > 0 {
		fmt.Fprintf(&b, "before      %d resources held state from before the run; the model and the tokens start from it\n", cov.InitialStates)
	}
	report.WriteErrors(&b, "errors      ", res.Evidence.Errors)
	for _, gap := range res.notCovered() {
		fmt.Fprintf(&b, "not covered %s\n", gap)
	}
	if res.ReceiverLog != nil {
		fmt.Fprintf(&b, "receiver    %s\n", res.ReceiverLog.Line())
	}
	fmt.Fprintf(&b, "checker     %s, %s model, %s policy, %s\n", res.Check.Checker, res.Check.Model, res.Check.Policy, res.Check.Elapsed.Round(time.Microsecond))
	for _, n := range res.Notes {
		fmt.Fprintf(&b, "note        %s\n", n)
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(&b, "warning     %s\n", w)
	}
	if res.Interrupted {
		fmt.Fprintf(&b, "interrupted %s; the verdict covers the history recorded until then\n", res.stopWords())
	}
	fmt.Fprintf(&b, "verdict     %s: %s\n", res.Headline(), res.Reason)
	if res.Verdict == judge.Held && res.Power.StaleTested > 0 {
		fmt.Fprintf(&b, "power       %s\n", res.Power.Sentence())
	}
	for _, line := range res.calibrated() {
		fmt.Fprintf(&b, "calibrated  %s\n", line)
	}
	_ = judge.WriteFindingLines(&b, &res.Report, "finding     ")
	if res.Dir != "" && !res.Config.NoReport {
		fmt.Fprintf(&b, "report      %s\n", filepath.Join(res.Dir, runstore.Report))
	}
	if cfg.Command != "" {
		fmt.Fprintf(&b, "reproduce   %s\n", cfg.Command)
	}
	_ = judge.WriteFindings(&b, &res.Report)
	res.ReceiverLog.WriteQuoted(&b)
	for i, x := range res.Exclusive {
		if i == 0 {
			fmt.Fprintf(&b, "\nwrites accepted after their lease had ended (%s):\n", res.terms().Setting(requireExclusive))
		}
		if i == 10 {
			fmt.Fprintf(&b, "  ... and %d more\n", len(res.Exclusive)-10)
			break
		}
		fmt.Fprintf(&b, "  %s\n", x)
	}
	return b.String()
}

// resourcesSummary counts the resources and describes their names.
func (c RunConfig) resourcesSummary() string {
	if c.Shard != "" {
		return fmt.Sprintf("%d of %d resources as shard %s (%s)", len(c.ResourceNames), c.Resources, c.Shard, c.namesSummary())
	}
	return fmt.Sprintf("%d resources (%s)", c.Resources, c.namesSummary())
}

// writeStrategy says, for a run whose workers do not fence, what they did
// and what it cost them.
func writeStrategy(b *strings.Builder, cfg RunConfig, m workload.Metrics) {
	s, _ := workload.ParseStrategy(cfg.ClientStrategy)
	fmt.Fprintf(b, "strategy    %s: %s", s, s.Describe())
	switch s {
	case workload.LongerLease:
		fmt.Fprintf(b, "; leases of %s (%g × %s)", cfg.IssuedTTL, cfg.LeaseMultiplier, cfg.LeaseTTL)
	case workload.Renew:
		fmt.Fprintf(b, "; every %s", cfg.RenewEvery)
	}
	if cfg.ClockSkew != "" {
		fmt.Fprintf(b, "; client clocks %s behind the issuer's", cfg.ClockSkew)
	}
	fmt.Fprintf(b, "\ncost        %d jobs wrote (%d abandoned), job latency p50 %s p99 %s; %d leases taken from live workers\n",
		m.Jobs, m.Abandoned, RoundLatency(m.LatencyP50), RoundLatency(m.LatencyP99), m.UnnecessaryReassignments)
}

// RoundLatency rounds a job latency for people: to 10 µs.
func RoundLatency(d time.Duration) time.Duration { return d.Round(10 * time.Microsecond) }

// namesSummary describes the resources' names.
func (c RunConfig) namesSummary() string {
	if c.FixedNames {
		return "fixed names " + termsafe.String(strings.Join(c.ResourceNames, ","))
	}
	return fmt.Sprintf("named %s-r0 …", c.RunID)
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
	for _, name := range nemesis.Names() {
		if n, ok := actions[name]; ok {
			parts = append(parts, fmt.Sprintf("%s %d", name, n))
		}
	}
	// Faults from outside the nemesis package (proxy, receiver process),
	// in name order.
	var others []string
	for name := range actions {
		if !slices.Contains(nemesis.Names(), name) {
			others = append(others, name)
		}
	}
	slices.Sort(others)
	for _, name := range others {
		parts = append(parts, fmt.Sprintf("%s %d", name, actions[name]))
	}
	return strings.Join(parts, ", ")
}

// stopWords says that an interrupted run was stopped early, and why when
// it is known.
func (res *Result) stopWords() string {
	if res.StoppedBecause == "" {
		return "the run was stopped early"
	}
	return "the run was stopped early: " + res.StoppedBecause
}
