package targetspec

import (
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/fencecheck/fencecheck/internal/redact"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/nemesis/proxy"
	"github.com/fencecheck/fencecheck/targets"
	httptarget "github.com/fencecheck/fencecheck/targets/httptarget"
	"github.com/fencecheck/fencecheck/targets/process"
)

func isHTTP(spec string) bool {
	return strings.HasPrefix(spec, "http://") || strings.HasPrefix(spec, "https://")
}

// credentials reports whether a header or a Basic authentication file
// was given.
func (h *HTTPOptions) credentials() bool { return len(h.Header) > 0 || h.BasicAuthFile != "" }

// parseHTTP reads the HTTP target's adapter and header, and its request
// timeout.
func (s *Spec) parseHTTP() error {
	o := &s.o
	if o.HTTP.Adapter != "" {
		var err error
		if s.adapter, err = httptarget.LoadAdapter(o.HTTP.Adapter); err != nil {
			return o.bad("HTTP.Adapter", "%w", err)
		}
	}
	var err error
	if s.header, err = s.requestHeader(); err != nil {
		return err
	}
	if o.HTTP.Timeout < 0 {
		return o.bad("HTTP.Timeout", "must not be negative")
	}
	return nil
}

// requestHeader is what HTTP.Header and HTTP.BasicAuthFile add to every
// request. The errors name the field and a header's name, never a value
// or the file's content: they may be secrets.
func (s *Spec) requestHeader() (http.Header, error) {
	o := &s.o
	header := http.Header{}
	for _, line := range o.HTTP.Header {
		name, value, err := httptarget.ParseHeader(line)
		if err != nil {
			return nil, o.bad("HTTP.Header", "%w", err)
		}
		header.Add(name, value)
	}
	userinfo := false
	if u, err := url.Parse(s.spec); err == nil && u.User != nil {
		userinfo = true
	}
	file := o.HTTP.BasicAuthFile
	if file == "" {
		if userinfo && header.Get("Authorization") != "" {
			return nil, o.bad("HTTP.Header", "Authorization given with user information in the target's URL; give the credentials once")
		}
		return header, nil
	}
	if userinfo {
		return nil, o.bad("HTTP.BasicAuthFile", "the target's URL has user information already; give the credentials once")
	}
	auth, err := readBasicAuth(file)
	if err != nil {
		return nil, o.badf("HTTP.BasicAuthFile", "%s %s: %w", o.word("HTTP.BasicAuthFile"), file, err)
	}
	if header.Get("Authorization") != "" {
		return nil, o.bad("HTTP.Header", "Authorization given with %s; give the credentials once", o.word("HTTP.BasicAuthFile"))
	}
	header.Set("Authorization", auth)
	return header, nil
}

// readBasicAuth reads a file that holds user:password on one line (a
// trailing newline is allowed) and returns the Authorization value.
func readBasicAuth(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	s := strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
	if strings.ContainsAny(s, "\r\n") {
		return "", errors.New("want user:password on one line, got more lines")
	}
	if !strings.Contains(s, ":") {
		return "", errors.New("want user:password, got no colon (the content is not shown)")
	}
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(s)), nil
}

// Secrets are the credentials of spec and of h's header and Basic
// authentication file, as well as they can be read, in every form an
// error may quote them: what a caller masks in any error it prints
// (redact.Error), once more, for those a layer below quoted without
// knowing them. It reads what Parse would refuse too.
func Secrets(spec string, h HTTPOptions) []string {
	header := http.Header{}
	for _, line := range h.Header {
		if name, value, ok := strings.Cut(line, ":"); ok {
			header.Add(name, strings.Trim(value, " \t"))
		}
	}
	if h.BasicAuthFile != "" {
		if auth, err := readBasicAuth(h.BasicAuthFile); err == nil {
			header.Set("Authorization", auth)
		}
	}
	secrets := redact.Secrets(spec, header)
	if strings.HasPrefix(spec, "s3://") {
		// An S3 target signs with the environment's key: its secret
		// is masked too, should any layer quote it.
		for _, k := range []string{"AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"} {
			if v := os.Getenv(k); v != "" {
				secrets = append(secrets, v)
			}
		}
	}
	return secrets
}

// openHTTP opens an http:// or https:// target: the HTTP fault proxy in
// front of the receiver when a fault acts in it, and the receiver
// process of Exec.
func (s *Spec) openHTTP(spec string, faults []nemesis.Fault) (*Target, error) {
	base, closeProxy := spec, func() error { return nil }
	var describe func(h http.Header, op, resource string, token uint64)
	if toxics := proxy.Toxics(faults); len(toxics) > 0 {
		p, err := proxy.Start(spec, toxics...)
		if err != nil {
			return nil, err
		}
		base, closeProxy, describe = p.URL(), p.Close, proxy.Describe
	}
	t, err := httptarget.New(base, httptarget.Options{Adapter: s.adapter, Workers: max(s.o.Workers, 1),
		Timeout: s.o.HTTP.Timeout, Describe: describe, Header: s.header})
	if err != nil {
		_ = closeProxy()
		return nil, s.o.bad("Spec", "%w", err)
	}
	var tgt targets.Target = t
	if s.child != nil {
		tgt = process.NewTarget(t, s.child)
	}
	return &Target{Target: tgt, Name: redact.Spec(spec), closers: []func() error{closeProxy}}, nil
}
