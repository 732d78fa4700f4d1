package main

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/fencecheck/fencecheck/internal/redact"
	"github.com/fencecheck/fencecheck/logscan"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/nemesis/proxy"
	"github.com/fencecheck/fencecheck/nemesis/tcpproxy"
	"github.com/fencecheck/fencecheck/targets"
	httptarget "github.com/fencecheck/fencecheck/targets/httptarget"
	"github.com/fencecheck/fencecheck/targets/process"
)

// httpFlags are the flags of run and verify for HTTP receivers.
type httpFlags struct {
	adapter        string
	requestTimeout time.Duration
	exec           string
	ready          string
	headers        []string // --header Name: value, repeated
	basicAuthFile  string
	logFail        []string       // --log-fail REGEX, repeated
	flags          *pflag.FlagSet // to tell a given --ready from its default
}

func (h *httpFlags) register(fl *pflag.FlagSet) {
	h.flags = fl
	fl.StringVar(&h.adapter, "adapter", "", "JSON adapter mapping an HTTP receiver's API onto the protocol (docs/http-protocol.md)")
	fl.DurationVar(&h.requestTimeout, "request-timeout", httptarget.DefaultOptions().Timeout, "HTTP targets: timeout of each request (an unknown outcome when it passes; 0: none)")
	fl.StringVar(&h.exec, "exec", "", `start the receiver as a child process (sh -c CMD), wait until it is ready (--ready), stop it at the end; output goes to the run directory. Refused while something already answers on the target's address`)
	fl.StringArrayVar(&h.headers, "header", nil, `HTTP targets: a header sent with every request, "Name: value" (repeatable), e.g. "Authorization: Bearer …"; values are never printed or stored`)
	fl.StringVar(&h.basicAuthFile, "basic-auth-file", "", "HTTP targets: a file holding user:password, sent as Basic authentication with every request; never printed or stored")
	fl.StringArrayVar(&h.logFail, "log-fail", nil, `with --exec: a regular expression (Go syntax) that marks a bug in a line of the receiver's output (repeatable); a matching line fails the run or the battery (exit 1), as panic:, fatal error: and DATA RACE always do`)
	fl.StringVar(&h.ready, "ready", defaultReady, `with --exec: when the receiver is ready: tcp (it accepts a TCP connection on the target's host:port), http-get:PATH (GET PATH gets any HTTP answer), cmd:COMMAND (sh -c COMMAND exits 0); counted only while the started process is alive`)
}

// child returns the receiver process of --exec, or nil.
func (h *httpFlags) child(spec string) (*process.Child, error) {
	if h.exec == "" {
		if h.flags.Changed("ready") {
			return nil, &usageError{fmt.Errorf("--ready: needs --exec (it says when the receiver fencecheck starts is ready)")}
		}
		if len(h.logFail) > 0 {
			return nil, &usageError{fmt.Errorf("--log-fail: needs --exec (fencecheck reads the output of a receiver it started)")}
		}
		return nil, nil
	}
	patterns, err := h.logPatterns()
	if err != nil {
		return nil, err
	}
	if !isHTTP(spec) {
		return nil, &usageError{fmt.Errorf("--exec: needs an http:// target, got %q", redact.Spec(spec))}
	}
	addr, err := targetAddr(spec)
	if err != nil {
		return nil, &usageError{fmt.Errorf("--target: %w", err)}
	}
	ready, err := parseReady(h.ready, spec, addr)
	if err != nil {
		return nil, &usageError{fmt.Errorf("--ready: %w", err)}
	}
	c := process.NewChild(h.exec, addr, ready)
	c.LogPatterns, c.LogSecrets = patterns, h.secrets(spec)
	return c, nil
}

// logPatterns compiles --log-fail.
func (h *httpFlags) logPatterns() ([]logscan.Pattern, error) {
	var out []logscan.Pattern
	for _, expr := range h.logFail {
		p, err := logscan.Compile(expr)
		if err != nil {
			return nil, &usageError{fmt.Errorf("--log-fail: %w", err)}
		}
		out = append(out, p)
	}
	return out, nil
}

// credentialsGiven reports whether --header or --basic-auth-file was set.
func (h *httpFlags) credentialsGiven() bool {
	return len(h.headers) > 0 || h.basicAuthFile != ""
}

func isHTTP(spec string) bool {
	return strings.HasPrefix(spec, "http://") || strings.HasPrefix(spec, "https://")
}

// parseFaults builds the --nemesis list: the generic faults, the HTTP
// proxy's toxics (HTTP targets), the TCP proxy's (any target reached over
// TCP) and the receiver process's faults (with --exec).
func parseFaults(list, spec string, child *process.Child) ([]nemesis.Fault, error) {
	extras := []nemesis.Extra{
		{Names: proxy.Names, New: proxy.New},
		{Names: tcpproxy.Names, New: tcpproxy.New},
		nemesis.IssuerExtra(),
		{Names: []string{"kill", "pause-receiver"}, New: func(name string) (nemesis.Fault, bool) {
			var proc nemesis.Process = child
			switch name {
			case "kill":
				return nemesis.NewKill(proc), true
			case "pause-receiver":
				return nemesis.NewPauseReceiver(proc), true
			}
			return nil, false
		}},
	}
	faults, err := nemesis.ParseWith(list, extras...)
	if err != nil {
		return nil, &usageError{fmt.Errorf("--nemesis: %w", err)}
	}
	if err := checkTCPFaults(faults, spec); err != nil {
		return nil, err
	}
	for _, f := range faults {
		switch {
		case isProxyFault(f) && !isHTTP(spec):
			return nil, &usageError{fmt.Errorf("--nemesis: %s acts in the HTTP proxy and needs an http:// target", f.Name())}
		case isProcessFault(f) && child == nil:
			return nil, &usageError{fmt.Errorf("--nemesis: %s acts on the receiver process and needs --exec", f.Name())}
		}
	}
	return faults, nil
}

func isProxyFault(f nemesis.Fault) bool {
	_, ok := f.(proxy.Toxic)
	return ok
}

func isProcessFault(f nemesis.Fault) bool {
	switch f.(type) {
	case *nemesis.Kill, *nemesis.PauseReceiver:
		return true
	}
	return false
}

// openHTTP opens an http:// or https:// target: the adapter, the fault
// proxy in front of the receiver when a proxy fault is in the list, and
// the receiver process of --exec.
func openHTTP(spec string, o targetOptions) (*openedTarget, error) {
	var adapter httptarget.Adapter
	if o.http.adapter != "" {
		var err error
		if adapter, err = httptarget.LoadAdapter(o.http.adapter); err != nil {
			return nil, &usageError{fmt.Errorf("--adapter: %w", err)}
		}
	}
	header, err := o.http.requestHeader(spec)
	if err != nil {
		return nil, err
	}
	base, closeProxy := spec, func() error { return nil }
	var describe func(h http.Header, op, resource string, token uint64)
	if toxics := proxy.Toxics(o.faults); len(toxics) > 0 {
		p, err := proxy.Start(spec, toxics...)
		if err != nil {
			return nil, err
		}
		base, closeProxy, describe = p.URL(), p.Close, proxy.Describe
	}
	if o.http.requestTimeout < 0 {
		closeProxy()
		return nil, &usageError{fmt.Errorf("--request-timeout: must not be negative")}
	}
	t, err := httptarget.New(base, httptarget.Options{Adapter: adapter,
		Workers: max(o.workers, 1), // a bad --workers is reported by the run's configuration
		Timeout: o.http.requestTimeout, Describe: describe, Header: header})
	if err != nil {
		closeProxy()
		return nil, &usageError{fmt.Errorf("--target: %w", err)}
	}
	var tgt targets.Target = t
	if o.child != nil {
		tgt = process.NewTarget(t, o.child)
	}
	return &openedTarget{target: tgt, name: redact.Spec(spec), close: closeProxy}, nil
}
