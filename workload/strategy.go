package workload

import (
	"fmt"
	"strings"

	"github.com/fencecheck/fencecheck/lease"
	"github.com/fencecheck/fencecheck/targets"
)

// Strategy is what a worker relies on to keep an older owner from
// replacing a newer owner's result: the fixes the article reviews "against
// the same timeline" (longer leases, more frequent renewal, a lease check
// right before the write) and the one it recommends (fencing).
//
// Only Fencing sends the lease's token with the write. The others send
// their writes without one (targets.TokenlessWriter), so the receiver,
// whatever it is, cannot reject an older owner. The history still records
// each write's invocation with the token of the lease it belongs to: the
// ownership generation of the write. The fenced-register checker then
// judges what it always judges, whether an older generation's result
// replaced a newer one's; for these strategies that is exactly a stale
// write accepted. Reads of such a run are recorded without the token the
// receiver reports (it was never sent one, so what it reports says
// nothing about the writers), and are judged on their values.
//
// The zero Strategy is Fencing, the workers' behaviour before strategies
// existed.
type Strategy uint8

// The strategies.
const (
	// Fencing sends the lease's token with every write, so that the
	// receiver can reject an older owner.
	Fencing Strategy = iota
	// None takes the lease and writes, without renewing it, checking it
	// or sending its token.
	None
	// LongerLease is None with a longer lease: the issued TTL is the
	// run's lease TTL times a multiplier, while the run's other timings
	// (think time, pauses, fault windows) keep following the run's TTL.
	// The harness applies the multiplier; the worker does what None does.
	LongerLease
	// Renew renews the lease at an interval while the job runs (Config.
	// RenewEvery), needing a lease.Renewer. A worker held at its pause
	// point cannot renew, as a paused process cannot. A failed renewal
	// tells the worker its lease is gone: it abandons the job if it has
	// not written yet. Its renewals fall due by its own clock, so they
	// come late by Config.ClockSkew: the one strategy a client's clock
	// skew changes.
	Renew
	// CheckBeforeWrite asks the issuer whether the lease is still held
	// after preparing its result (a lease.HolderChecker), abandons the
	// job if not, and otherwise goes on to its pause point and writes:
	// a pause or a delayed request can come after the check. The issuer
	// answers on its own clock (a TTL it keeps, a key's PTTL, a row's
	// time left), so a client's clock skew does not change the answer.
	CheckBeforeWrite
)

// Strategies lists every strategy in the order of the article's table of
// tempting fixes, fencing last.
func Strategies() []Strategy { return []Strategy{None, LongerLease, Renew, CheckBeforeWrite, Fencing} }

var strategyNames = [...]string{Fencing: "fencing", None: "none", LongerLease: "longer-lease", Renew: "renew",
	CheckBeforeWrite: "check-before-write"}

// String is the strategy's name, as ParseStrategy reads it.
func (s Strategy) String() string {
	if int(s) < len(strategyNames) {
		return strategyNames[s]
	}
	return fmt.Sprintf("Strategy(%d)", s)
}

// StrategyNames is the names of Strategies, comma-separated.
func StrategyNames() string {
	names := make([]string, len(Strategies()))
	for i, s := range Strategies() {
		names[i] = s.String()
	}
	return strings.Join(names, ", ")
}

// ParseStrategy reads a strategy's name.
func ParseStrategy(name string) (Strategy, error) {
	for _, s := range Strategies() {
		if s.String() == name {
			return s, nil
		}
	}
	return 0, fmt.Errorf("unknown client strategy %q (want one of %s)", name, StrategyNames())
}

// Fences reports whether the worker sends its lease's token with its
// writes.
func (s Strategy) Fences() bool { return s == Fencing }

// Describe says in a few words what a worker of the strategy does.
func (s Strategy) Describe() string {
	switch s {
	case None:
		return "no token sent, no renewal, no check"
	case LongerLease:
		return "a longer lease; no token sent, no renewal, no check"
	case Renew:
		return "renews its lease while it works; no token sent"
	case CheckBeforeWrite:
		return "asks the issuer whether its lease is held before it writes; no token sent"
	}
	return "sends its lease's token with every write"
}

// CheckStrategy says what the strategy needs that the lease service or
// the target lacks (CheckLeases, CheckTarget).
func CheckStrategy(s Strategy, leases lease.Service, target targets.Target) error {
	if err := CheckLeases(s, leases); err != nil {
		return err
	}
	return CheckTarget(s, target)
}

// CheckLeases says what the strategy needs that the lease service lacks:
// renewing (lease.Renewer) or saying whether a lease is held
// (lease.HolderChecker).
func CheckLeases(s Strategy, leases lease.Service) error {
	switch s {
	case Renew:
		if _, ok := leases.(lease.Renewer); !ok {
			return fmt.Errorf("client strategy %s renews leases, and the lease service cannot (no lease.Renewer)", s)
		}
	case CheckBeforeWrite:
		if _, ok := leases.(lease.HolderChecker); !ok {
			return fmt.Errorf("client strategy %s asks whether a lease is held, and the lease service cannot (no lease.HolderChecker)", s)
		}
	}
	return nil
}

// CheckTarget says whether the target can take the strategy's writes: a
// strategy that does not fence needs a targets.TokenlessWriter.
func CheckTarget(s Strategy, target targets.Target) error {
	if s.Fences() {
		return nil
	}
	if _, err := targets.Tokenless(target); err != nil {
		return fmt.Errorf("client strategy %s writes without a token, and the target cannot: %w", s, err)
	}
	return nil
}
