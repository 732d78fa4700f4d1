package nemesis

import "fmt"

// Site is what a run offers its faults to act on beyond what every run
// has (the workers, the lease service, the target's calls): a fault
// proxy in front of its receiver, a token issuer whose servers
// fencecheck started. A fault that acts on one of them can act only
// where the run has it, and says so with Fault.Available, as etcd's
// robustness failpoints do with Available: the runner asks each fault,
// instead of one validator knowing every fault's preconditions.
//
// The zero Site offers none of them. A receiver process is never the
// site's to offer: the faults that act on one carry it (NewKill(proc)).
type Site struct {
	// HTTPProxy: the workers' requests reach the receiver through the
	// HTTP fault proxy (nemesis/proxy), which holds the run's proxy
	// faults: an http:// target opened with the faults (targets/spec).
	HTTPProxy bool
	// TCPProxy: the target's client connects to the receiver through
	// the TCP fault proxy (nemesis/tcpproxy), which holds the run's net-
	// faults: a target reached over one plain TCP address opened with
	// the faults.
	TCPProxy bool
	// IssuerServers: the run's token issuer runs as servers fencecheck
	// started itself (lease.Servers), which the issuer faults crash and
	// freeze.
	IssuerServers bool
	_             struct{}
}

// Need is what a fault acts on that not every run has.
type Need int

// The needs of the faults fencecheck has. The zero Need is none.
const (
	NeedHTTPProxy     Need = iota + 1 // the HTTP fault proxy holds the fault
	NeedTCPProxy                      // the TCP fault proxy holds the fault
	NeedProcess                       // the fault was given a receiver process
	NeedIssuerServers                 // the issuer's servers are fencecheck's
)

// String words what the need is.
func (n Need) String() string {
	switch n {
	case NeedHTTPProxy:
		return "the HTTP fault proxy in front of the receiver, with the fault in it"
	case NeedTCPProxy:
		return "the TCP fault proxy in front of the receiver, with the fault in it"
	case NeedProcess:
		return "a receiver process to act on"
	case NeedIssuerServers:
		return "an issuer whose servers fencecheck started itself"
	case 0:
		return "nothing"
	}
	return fmt.Sprintf("Need(%d)", int(n))
}

// Acts words where a fault with the need acts.
func (n Need) Acts() string {
	switch n {
	case NeedHTTPProxy:
		return "in the HTTP proxy"
	case NeedTCPProxy:
		return "on the TCP connection to the receiver"
	case NeedProcess:
		return "on the receiver process"
	case NeedIssuerServers:
		return "on the token issuer's servers"
	}
	return "in the run"
}

// Offers reports whether s has what n names; every site offers the zero
// Need, and none a receiver process.
func (s Site) Offers(n Need) bool {
	switch n {
	case 0:
		return true
	case NeedHTTPProxy:
		return s.HTTPProxy
	case NeedTCPProxy:
		return s.TCPProxy
	case NeedIssuerServers:
		return s.IssuerServers
	}
	return false
}

// Unavailable is Fault.Available's answer for a fault that cannot act
// at a site: which fault, and what it needs that the site lacks. Callers
// word it in their own terms from Needs (the CLI as its flags).
type Unavailable struct {
	Fault string // the fault's name, as Parse reads it
	Needs Need
}

func (u *Unavailable) Error() string {
	return fmt.Sprintf("%s acts %s and needs %s", u.Fault, u.Needs.Acts(), u.Needs)
}

// Unavailables returns the answer of every fault that cannot act at
// site, in the faults' order.
func Unavailables(faults []Fault, site Site) []error {
	var errs []error
	for _, f := range faults {
		if err := f.Available(site); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}
