package targetspec

import (
	"errors"
	"net"
	"net/url"

	"github.com/fencecheck/fencecheck/logscan"
	"github.com/fencecheck/fencecheck/targets/process"
)

// parseExec reads Exec: the receiver process, its readiness check and
// the patterns of its log.
func (s *Spec) parseExec() error {
	o, e := &s.o, s.o.Exec
	if e.Command == "" {
		switch {
		case e.Ready != "":
			return o.bad("Exec.Ready", "needs %s (it says when the receiver fencecheck starts is ready)", o.word("Exec.Command"))
		case len(e.LogFail) > 0:
			return o.bad("Exec.LogFail", "needs %s (fencecheck reads the output of a receiver it started)", o.word("Exec.Command"))
		}
		return nil
	}
	var patterns []logscan.Pattern
	for _, expr := range e.LogFail {
		p, err := logscan.Compile(expr)
		if err != nil {
			return o.bad("Exec.LogFail", "%w", err)
		}
		patterns = append(patterns, p)
	}
	if !isHTTP(s.spec) {
		return o.bad("Exec.Command", "needs an http:// target, got %q", s.Name())
	}
	addr, err := targetAddr(s.spec)
	if err != nil {
		return o.bad("Spec", "%w", err)
	}
	ready := e.Ready
	if ready == "" {
		ready = process.DefaultReady
	}
	check, err := process.ParseReady(ready, s.spec, addr)
	if err != nil {
		return o.bad("Exec.Ready", "%w", err)
	}
	s.child = process.NewChild(e.Command, addr, check)
	s.child.LogPatterns, s.child.LogSecrets = patterns, s.Secrets()
	return nil
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
