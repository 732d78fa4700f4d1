package process

import (
	"fmt"
	"net/url"
	"strings"
	"unicode"
)

// DefaultReady is ParseReady's default: the receiver listens.
const DefaultReady = "tcp"

// ParseReady reads when a started receiver is ready, as a person writes
// it: tcp (a TCP connect to addr, the receiver's host:port), http-get:PATH
// (a GET of PATH below the receiver's base URL answers, whatever its
// status), or cmd:COMMAND (sh -c COMMAND exits 0). Its errors quote the
// value.
func ParseReady(value, base, addr string) (Ready, error) {
	kind, arg, _ := strings.Cut(value, ":")
	switch kind {
	case "tcp":
		if arg != "" || strings.Contains(value, ":") {
			return nil, fmt.Errorf("%q: tcp takes no argument (it connects to the target's %s)", value, addr)
		}
		return DialReady(addr), nil
	case "http-get":
		if !strings.HasPrefix(arg, "/") {
			return nil, fmt.Errorf("%q: want http-get:PATH with PATH starting with /, e.g. http-get:/health", value)
		}
		if strings.IndexFunc(arg, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0 {
			return nil, fmt.Errorf("%q: the path contains a space or a control character", value)
		}
		u := strings.TrimSuffix(base, "/") + arg
		if _, err := url.Parse(u); err != nil {
			return nil, fmt.Errorf("%q: not a valid path", value)
		}
		return HTTPGetReady(u), nil
	case "cmd":
		if strings.TrimSpace(arg) == "" {
			return nil, fmt.Errorf("%q: want cmd:COMMAND, a shell command line that exits 0 once the receiver is ready", value)
		}
		return CommandReady(arg), nil
	}
	return nil, fmt.Errorf("%q is not tcp, http-get:PATH or cmd:COMMAND", value)
}
