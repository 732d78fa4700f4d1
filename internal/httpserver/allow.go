package httpserver

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// HostPolicy says which Host headers a server answers. The zero value
// answers the loopback names only.
//
// A server on loopback is not reachable from other machines, but a web
// page in the user's browser can still reach it by DNS rebinding: the
// page's own name is made to resolve to 127.0.0.1, and the browser, which
// thinks it talks to the page's site, lets the page read the answers.
// Such a request carries the page's name as its Host, so a server that
// answers only the names that mean this machine cannot be read or written
// that way.
type HostPolicy struct {
	// AnyHost turns the check off: every Host is answered.
	AnyHost bool
	// Names are answered besides the loopback names: host names or IP
	// addresses (IPv6 bare or in brackets), without a port.
	Names []string
	// Listen is the address the server listens on, as given; its host is
	// answered too when it is a name or an address without a zone, and
	// not unspecified (0.0.0.0, ::): those name no host a client uses.
	Listen string
	// Hint, if set, is added to a refusal of a well-formed host: what the
	// server's operator can do to have it answered.
	Hint func(host string) string
	_    struct{}
}

// AllowHosts wraps h so that it answers only requests whose Host the
// policy allows, with any port or none. The others get 421 Misdirected
// Request and a plain-text body naming the Host.
func AllowHosts(h http.Handler, p HostPolicy) (http.Handler, error) {
	if p.AnyHost {
		return h, nil
	}
	g := &hostGuard{next: h, names: map[string]bool{}, hint: p.Hint}
	for _, n := range p.Names {
		c, err := ParseName(n)
		if err != nil {
			return nil, fmt.Errorf("allowed host %q: %w", n, err)
		}
		g.add(c)
	}
	if p.Listen != "" {
		host, _, err := net.SplitHostPort(p.Listen)
		if err != nil {
			return nil, fmt.Errorf("listen address %q: %w", p.Listen, err)
		}
		if c, err := ParseName(host); err == nil && !isUnspecified(c) {
			g.add(c)
		}
	}
	return g, nil
}

type hostGuard struct {
	next  http.Handler
	names map[string]bool
	extra []string // the names besides loopback, in the order given, for the refusal
	hint  func(host string) string
}

func (g *hostGuard) add(host string) {
	if !g.names[host] && !isLoopback(host) {
		g.names[host] = true
		g.extra = append(g.extra, host)
	}
}

// allowed reports whether the guard answers a request for host (a Host
// header), and the host in canonical form when it parses.
func (g *hostGuard) allowed(header string) (string, bool, error) {
	host, err := ParseHost(header)
	if err != nil {
		return "", false, err
	}
	return host, isLoopback(host) || g.names[host], nil
}

func (g *hostGuard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	host, ok, err := g.allowed(r.Host)
	if ok {
		g.next.ServeHTTP(w, r)
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "421 Misdirected Request: this server does not answer requests for host %q.\n", r.Host)
	if err != nil {
		fmt.Fprintf(&b, "The host is malformed: %v.\n", err)
	}
	b.WriteString("It answers localhost, names under .localhost, 127.0.0.0/8 and [::1]")
	if len(g.extra) > 0 {
		fmt.Fprintf(&b, ", and %s", strings.Join(g.extra, ", "))
	}
	b.WriteString(", on any port: a page in a web browser could otherwise read or change it by DNS rebinding.\n")
	if err == nil && g.hint != nil {
		b.WriteString(g.hint(host) + "\n")
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Connection", "close")
	w.WriteHeader(http.StatusMisdirectedRequest)
	_, _ = w.Write([]byte(b.String()))
}

func isUnspecified(host string) bool {
	a, err := netip.ParseAddr(host)
	return err == nil && a.IsUnspecified()
}
