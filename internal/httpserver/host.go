package httpserver

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// ParseHost parses a Host header, "name", "name:port", "1.2.3.4:port" or
// "[::1]:port", and returns the host in canonical form: a name in lower
// case without a trailing dot, an IP address as netip writes it (IPv6
// without brackets). The port, if any, must be a decimal number up to
// 65535; it is dropped, since any port is answered.
//
// Names are letters, digits, '-', '_' and dots: what DNS and /etc/hosts
// hold. Anything else (a '%', a '@', a space, a zone in an IPv6 literal) is
// an error, so a refusal can never be talked round by an odd spelling.
func ParseHost(header string) (string, error) {
	host, port, err := splitPort(header)
	if err != nil {
		return "", err
	}
	if port != "" {
		if len(port) > 5 || strings.Trim(port, "0123456789") != "" {
			return "", fmt.Errorf("host %q: port %q is not a number", header, port)
		}
		if n, _ := strconv.Atoi(port); n > 65535 {
			return "", fmt.Errorf("host %q: port %s is above 65535", header, port)
		}
	}
	if h, ok := strings.CutPrefix(host, "["); ok {
		a, err := netip.ParseAddr(strings.TrimSuffix(h, "]"))
		if err != nil || !a.Is6() || a.Zone() != "" {
			return "", fmt.Errorf("host %q: %q is not an IPv6 address", header, host)
		}
		return a.String(), nil
	}
	return parseName(header, host)
}

// splitPort splits "host:port" or "[v6]:port"; the port is "" when there is
// none. A bare IPv6 address is refused: HTTP puts it in brackets.
func splitPort(header string) (host, port string, err error) {
	if header == "" {
		return "", "", errors.New("no host")
	}
	if strings.HasPrefix(header, "[") {
		end := strings.IndexByte(header, ']')
		if end < 0 {
			return "", "", fmt.Errorf("host %q: no ] after the IPv6 address", header)
		}
		host, rest := header[:end+1], header[end+1:]
		if rest == "" {
			return host, "", nil
		}
		p, ok := strings.CutPrefix(rest, ":")
		if !ok || p == "" {
			return "", "", fmt.Errorf("host %q: %q after the IPv6 address", header, rest)
		}
		return host, p, nil
	}
	host, port, found := strings.Cut(header, ":")
	switch {
	case strings.Contains(port, ":"):
		return "", "", fmt.Errorf("host %q: an IPv6 address must be in brackets", header)
	case found && port == "":
		return "", "", fmt.Errorf("host %q: a colon and no port", header)
	}
	return host, port, nil
}

// parseName checks a name or an IPv4 address (host has no port).
func parseName(header, host string) (string, error) {
	name := strings.ToLower(strings.TrimSuffix(host, "."))
	if name == "" || strings.HasPrefix(name, ".") || strings.HasSuffix(name, ".") || strings.Contains(name, "..") {
		return "", fmt.Errorf("host %q: %q is not a host name", header, host)
	}
	for _, c := range []byte(name) {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return "", fmt.Errorf("host %q: %q is not a host name", header, host)
		}
	}
	if a, err := netip.ParseAddr(name); err == nil {
		return a.String(), nil
	}
	return name, nil
}

// ParseName parses a name a server is told to answer besides loopback: a
// host name or an IP address, bare or in brackets (IPv6), without a port.
// It returns the name in canonical form, as ParseHost does.
func ParseName(name string) (string, error) {
	if a, err := netip.ParseAddr(name); err == nil && a.Is6() && a.Zone() == "" {
		return a.String(), nil
	}
	host, port, err := splitPort(name)
	if err != nil {
		return "", err
	}
	if port != "" {
		return "", fmt.Errorf("host %q: names a port; every port is answered, give the name alone", name)
	}
	return ParseHost(host)
}

// isLoopback reports whether a canonical host always means this machine:
// localhost and the names below it (RFC 6761; browsers resolve them to
// loopback themselves, never through DNS), 127.0.0.0/8 and ::1.
func isLoopback(host string) bool {
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.Unmap().IsLoopback()
}
