package httpserver

import (
	"fmt"
	"net"
)

// CheckLoopback refuses a listen address that is not loopback unless
// allowRemote: fencecheck's servers have no authentication, so reaching
// beyond the machine is a choice the operator makes explicitly.
func CheckLoopback(addr string, allowRemote bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("listen address %q: %w", addr, err)
	}
	if allowRemote || host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("listen address %q is not loopback, and remote clients are not allowed", addr)
}

// IsLoopbackAddr reports whether a listener's address is a loopback one,
// which only this machine can reach.
func IsLoopbackAddr(a net.Addr) bool {
	tcp, ok := a.(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
}
