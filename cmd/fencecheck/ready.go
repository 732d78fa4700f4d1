package main

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"unicode"

	"github.com/fencecheck/fencecheck/targets/process"
)

// defaultReady is --ready's default: the receiver listens.
const defaultReady = "tcp"

// parseReady translates --ready into the receiver process's readiness
// check: tcp (a TCP connect to addr), http-get:PATH (a GET of PATH below
// the target's base URL answers, whatever its status), or cmd:CMD (sh -c
// CMD exits 0).
func parseReady(value, base, addr string) (process.Ready, error) {
	kind, arg, _ := strings.Cut(value, ":")
	switch kind {
	case "tcp":
		if arg != "" || strings.Contains(value, ":") {
			return nil, fmt.Errorf("%q: tcp takes no argument (it connects to the target's %s)", value, addr)
		}
		return process.DialReady(addr), nil
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
		return process.HTTPGetReady(u), nil
	case "cmd":
		if strings.TrimSpace(arg) == "" {
			return nil, fmt.Errorf("%q: want cmd:COMMAND, a shell command line that exits 0 once the receiver is ready", value)
		}
		return process.CommandReady(arg), nil
	}
	return nil, fmt.Errorf("%q is not tcp, http-get:PATH or cmd:COMMAND", value)
}

// targetAddr is the host:port an http:// or https:// target spec names,
// with the scheme's default port when it names none.
func targetAddr(spec string) (string, error) {
	u, err := url.Parse(spec)
	if err != nil {
		// Not err: it quotes the URL, and with it any password.
		return "", errors.New("not a valid URL")
	}
	if u.Hostname() == "" {
		return "", errors.New("the target names no host")
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return net.JoinHostPort(u.Hostname(), port), nil
}
