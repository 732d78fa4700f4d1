package targetspec

import (
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"

	"github.com/fencecheck/fencecheck/internal/redact"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/nemesis/tcpproxy"
	"github.com/fencecheck/fencecheck/targets/natstarget"
)

// tcpDefaultPorts are the schemes whose receiver fencecheck reaches over
// one plain TCP address, which the TCP fault proxy can stand in front of,
// with the port each connects to when the spec names none. TLS schemes
// (https, rediss) are not among them: the client would check the
// receiver's certificate against the proxy's loopback address.
var tcpDefaultPorts = map[string]string{
	"postgres": "5432", "postgresql": "5432", "mysql": "3306", "redis": "6379", "nats": "4222", "http": "80", "s3": "80",
}

// tcpSchemes lists tcpDefaultPorts' schemes for messages.
func tcpSchemes() string {
	var s []string
	for k := range tcpDefaultPorts {
		s = append(s, k+"://")
	}
	slices.Sort(s)
	return strings.Join(s, ", ")
}

// proxiedSpec returns the address the spec's client connects to
// (upstream) and the spec with that address replaced by proxy, where the
// TCP fault proxy listens. Everything else of the spec (user, password,
// database, parameters) is kept. Its error says why the TCP proxy cannot
// stand in front of the spec's receiver.
func proxiedSpec(spec, proxy string) (upstream, proxied string, err error) {
	scheme, _, _ := strings.Cut(spec, "://")
	port, ok := tcpDefaultPorts[scheme]
	if !ok {
		return "", "", fmt.Errorf("needs a target reached over TCP (%s), not %s://", tcpSchemes(), scheme)
	}
	u, err := url.Parse(spec)
	if err != nil {
		return "", "", fmt.Errorf("target %q is not a URL", redact.Spec(spec))
	}
	q := u.Query()
	if scheme == "s3" && q.Get("tls") == "true" {
		return "", "", fmt.Errorf("the S3 store is reached over TLS (tls=true), whose certificate the client would check against the proxy's address")
	}
	for _, k := range []string{"host", "hostaddr", "port"} {
		if q.Has(k) {
			return "", "", fmt.Errorf("the target's address is given as the parameter %q; name the one host:port in the URL instead", k)
		}
	}
	host := u.Hostname()
	if scheme == "nats" && host == natstarget.EmbeddedHost {
		return "", "", fmt.Errorf("the private NATS server's port is chosen when it starts; run your own and name it as nats://HOST:PORT")
	}
	if host == "" || strings.ContainsAny(u.Host, ",/") {
		return "", "", fmt.Errorf("target %q names no single host:port", redact.Spec(spec))
	}
	if p := u.Port(); p != "" {
		port = p
	}
	upstream = net.JoinHostPort(host, port)
	if _, _, err := net.SplitHostPort(upstream); err != nil {
		return "", "", fmt.Errorf("target %q names no single host:port", redact.Spec(spec))
	}
	u.Host = proxy
	return upstream, u.String(), nil
}

// tcpProxiable says why the TCP fault proxy cannot stand in front of
// spec's receiver, nil when it can.
func tcpProxiable(spec string) error {
	_, _, err := proxiedSpec(spec, "127.0.0.1:1")
	return err
}

// openThroughTCPProxy opens the target spec names (s's own, or the
// embedded S3 store's address) behind the TCP fault proxy when
// faults has the proxy's toxics: the target's client connects to the
// proxy, which relays to the receiver. The target keeps the spec's name,
// and its Close closes the proxy too. What the target's errors quote
// still names the proxy's address.
func (s *Spec) openThroughTCPProxy(spec string, faults []nemesis.Fault, open func(spec string) (*Target, error)) (*Target, error) {
	toxics := tcpproxy.Toxics(faults)
	if len(toxics) == 0 {
		return open(spec)
	}
	upstream, _, err := proxiedSpec(spec, "127.0.0.1:1")
	if err != nil {
		return nil, err // CheckFaults refused it already
	}
	p, err := tcpproxy.Start(upstream, toxics...)
	if err != nil {
		return nil, err
	}
	_, proxied, _ := proxiedSpec(spec, p.Addr())
	t, err := open(proxied)
	if err != nil {
		_ = p.Close()
		return nil, fmt.Errorf("through the TCP fault proxy: %w", err)
	}
	u, _ := url.Parse(spec)
	// The receiver is the same with or without the faults: so is its
	// name, which also names its folder in the run store.
	t.Name = strings.Replace(t.Name, p.Addr(), u.Host, 1)
	t.closers = append([]func() error{p.Close}, t.closers...)
	return t, nil
}
