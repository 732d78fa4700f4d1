package targetspec

import (
	"errors"

	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/nemesis/proxy"
	"github.com/fencecheck/fencecheck/nemesis/tcpproxy"
)

// Site is what a target opened from the spec offers its faults: the
// HTTP fault proxy for an http:// target, the TCP fault proxy for one
// reached over one plain TCP address. The token issuer's servers are the
// run's to offer, not the spec's: harness.Config.Validate asks the issuer
// faults again with them.
func (s *Spec) Site() nemesis.Site {
	return nemesis.Site{HTTPProxy: isHTTP(s.spec), TCPProxy: tcpProxiable(s.spec) == nil}
}

// ParseFaults builds the faults of a comma-separated list ("pause,delay",
// "none") that a run against the spec may have: nemesis's own, the HTTP
// proxy's and the TCP proxy's toxics, the issuer faults, and the faults
// on the receiver process of Exec; then CheckFaults.
func (s *Spec) ParseFaults(list string) ([]nemesis.Fault, error) {
	faults, err := nemesis.ParseWith(list,
		nemesis.Extra{Names: proxy.Names(), New: proxy.New},
		nemesis.Extra{Names: tcpproxy.Names(), New: tcpproxy.New},
		nemesis.IssuerExtra(),
		nemesis.ProcessExtra(s.Process()))
	if err != nil {
		return nil, s.o.bad("Faults", "%w", err)
	}
	if err := s.CheckFaults(faults); err != nil {
		return nil, err
	}
	return faults, nil
}

// CheckFaults asks each fault whether it can act at the spec's Site
// (nemesis.Fault.Available) and words the first that cannot in the
// caller's terms: the proxy's faults need an http:// target, the TCP
// proxy's one reached over TCP, the process faults Exec. The issuer
// faults are left to the run, which knows its issuer.
func (s *Spec) CheckFaults(faults []nemesis.Fault) error {
	o := &s.o
	for _, err := range nemesis.Unavailables(faults, s.Site()) {
		var u *nemesis.Unavailable
		if !errors.As(err, &u) {
			return o.bad("Faults", "%w", err)
		}
		switch u.Needs {
		case nemesis.NeedIssuerServers:
			continue
		case nemesis.NeedHTTPProxy:
			return o.bad("Faults", "%s acts in the HTTP proxy and needs an http:// target", u.Fault)
		case nemesis.NeedTCPProxy:
			return o.bad("Faults", "%s acts on the TCP connection to the receiver: %w", u.Fault, tcpProxiable(s.spec))
		case nemesis.NeedProcess:
			return o.bad("Faults", "%s acts on the receiver process and needs %s", u.Fault, o.word("Exec.Command"))
		}
		return o.bad("Faults", "%w", err)
	}
	return nil
}
