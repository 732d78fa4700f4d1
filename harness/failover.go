package harness

import (
	"errors"
	"fmt"
	"strings"

	"github.com/fencecheck/fencecheck/lease"
	"github.com/fencecheck/fencecheck/nemesis"
)

// The faults on the token issuer's own servers (nemesis.IssuerAttacher:
// issuer-kill, issuer-pause) need an issuer fencecheck started itself, and
// a run with them tests what it is for only if a lease was granted after
// a server it took down came back: the token sequence across a failover.

// issuerFaults names the faults of faults that act on the issuer's
// servers.
func issuerFaults(faults []nemesis.Fault) []string {
	var names []string
	for _, f := range faults {
		if _, ok := f.(nemesis.IssuerAttacher); ok {
			names = append(names, f.Name())
		}
	}
	return names
}

// hasIssuerServers reports whether the run's lease service will have
// servers to fault: an Issuer that says so, or a Leases service that has
// them.
func (c *Config) hasIssuerServers() bool {
	if si, ok := c.Leases.Issuer.(lease.ServerIssuer); ok {
		return si.HasServers()
	}
	_, ok := c.Leases.Service.(lease.Servers)
	return ok
}

// needsServers words the error of issuer faults without servers, in t's
// terms.
func needsServers(names []string, t Terms) error {
	return fmt.Errorf("%s needs an issuer fencecheck started itself: %s", strings.Join(names, " and "), t.Setting(issuerServers))
}

// attachIssuer hands the lease service's servers, shared, to the faults
// that act on them, and notes whether the service has servers at all.
// Config.Validate refused a run whose issuer says it has none; this is
// the check of what the issuer really opened.
func (r *run) attachIssuer(svc lease.Service) error {
	servers, ok := svc.(lease.Servers)
	r.issuerServers = ok
	_, r.issuerReplica = svc.(lease.IssueCounter)
	_, r.restorable = svc.(lease.Restorer)
	names := issuerFaults(r.cfg.Nemesis.Faults)
	if len(names) == 0 {
		return nil
	}
	if !ok {
		return needsServers(names, r.cfg.terms())
	}
	if err := checkClock(svc, r.cfg.Nemesis.Faults); err != nil {
		return err
	}
	for _, f := range r.cfg.Nemesis.Faults {
		if c, ok := f.(nemesis.IssuerChecker); ok {
			if err := c.CanAct(servers); err != nil {
				return err
			}
		}
	}
	shared := nemesis.ShareIssuer(servers)
	for _, f := range r.cfg.Nemesis.Faults {
		if _, ok := f.(nemesis.IssuerRestorer); ok && !shared.Restorable() {
			return fmt.Errorf("%s needs an issuer fencecheck can restore from a snapshot (an embedded etcd cluster whose members run as processes)", f.Name())
		}
	}
	for _, f := range r.cfg.Nemesis.Faults {
		if a, ok := f.(nemesis.IssuerAttacher); ok {
			a.AttachIssuer(shared)
		}
	}
	return nil
}

// clockJump is a fault that jumps the issuer's clock (issuer-clock): its
// run opens the issuer with a clock that can jump (lease.Env.ClockJumps).
type clockJump interface{ JumpsIssuerClock() }

// jumpsClock reports whether a fault of faults jumps the issuer's clock.
func jumpsClock(faults []nemesis.Fault) bool {
	for _, f := range faults {
		if _, ok := f.(clockJump); ok {
			return true
		}
	}
	return false
}

// clockJumps says why the run's issuer cannot start with a clock that
// jumps, when a fault of the run jumps it: an Issuer that is not a
// lease.ClockIssuer, or one that lacks what it needs (libfaketime). A
// Leases service given open is asked once the run starts.
func (c *Config) clockJumps() error {
	if !jumpsClock(c.Nemesis.Faults) || c.Leases.Issuer == nil {
		return nil
	}
	ci, ok := c.Leases.Issuer.(lease.ClockIssuer)
	if !ok {
		return fmt.Errorf("issuer-clock needs an issuer whose clock fencecheck can jump (a private redis-server under libfaketime), and %s has none", c.Leases.Issuer.Name())
	}
	if err := ci.ClockJumps(); err != nil {
		return fmt.Errorf("issuer-clock cannot jump the clock of %s: %w", c.Leases.Issuer.Name(), err)
	}
	return nil
}

// checkClock is clockJumps for the service the run opened: a fault that
// jumps the clock needs a lease.ClockJumper.
func checkClock(svc lease.Service, faults []nemesis.Fault) error {
	if _, ok := svc.(lease.ClockJumper); jumpsClock(faults) && !ok {
		return errors.New("issuer-clock needs an issuer whose clock fencecheck can jump (lease.ClockJumper: a private redis-server under libfaketime)")
	}
	return nil
}
