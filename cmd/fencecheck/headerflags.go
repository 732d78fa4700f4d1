package main

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/fencecheck/fencecheck/internal/redact"
	httptarget "github.com/fencecheck/fencecheck/targets/httptarget"
)

// requestHeader is what --header and --basic-auth-file add to every
// request of an HTTP target. The errors name the flag and a header's
// name, never a value or the file's content: they may be secrets.
func (h *httpFlags) requestHeader(spec string) (http.Header, error) {
	header := http.Header{}
	for _, line := range h.headers {
		name, value, err := httptarget.ParseHeader(line)
		if err != nil {
			return nil, &usageError{fmt.Errorf("--header: %w", err)}
		}
		header.Add(name, value)
	}
	userinfo := false
	if u, err := url.Parse(spec); err == nil && u.User != nil {
		userinfo = true
	}
	if h.basicAuthFile != "" {
		if userinfo {
			return nil, &usageError{errors.New("--basic-auth-file: the target's URL has user information already; give the credentials once")}
		}
		auth, err := readBasicAuth(h.basicAuthFile)
		if err != nil {
			return nil, &usageError{fmt.Errorf("--basic-auth-file %s: %w", h.basicAuthFile, err)}
		}
		if header.Get("Authorization") != "" {
			return nil, &usageError{errors.New("--header: Authorization given with --basic-auth-file; give the credentials once")}
		}
		header.Set("Authorization", auth)
	} else if userinfo && header.Get("Authorization") != "" {
		return nil, &usageError{errors.New("--header: Authorization given with user information in the target's URL; give the credentials once")}
	}
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

// maskHeader is a --header value as a printed command line may show it:
// the name, and xxxxx for the value, which may be a secret.
func maskHeader(line string) string {
	name, _, ok := strings.Cut(line, ":")
	if !ok {
		return redact.Mask
	}
	return name + ": " + redact.Mask
}

// scrub removes from err, about to be printed, the credentials of spec
// and of --header and --basic-auth-file once more, for those a layer below
// quoted without knowing them.
func (h *httpFlags) scrub(spec string, err error) error {
	if err == nil {
		return nil
	}
	return redact.Error(err, h.secrets(spec))
}

// secrets are the credentials of spec and of the --header and
// --basic-auth-file flags, as well as they can be read.
func (h *httpFlags) secrets(spec string) []string {
	header := http.Header{}
	for _, line := range h.headers {
		if name, value, ok := strings.Cut(line, ":"); ok {
			header.Add(name, strings.Trim(value, " \t"))
		}
	}
	if h.basicAuthFile != "" {
		if auth, err := readBasicAuth(h.basicAuthFile); err == nil {
			header.Set("Authorization", auth)
		}
	}
	return redact.Secrets(spec, header)
}
