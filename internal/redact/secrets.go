package redact

import (
	"cmp"
	"encoding/base64"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// Secrets lists the credentials in a target spec and in the headers sent
// with every request, in every form in which an error text may quote them
// (as given, unescaped, query- and path-escaped, escaped as in a Go
// quoted string; user information also as
// the Basic credentials it is sent as), longest first, so that Scrub
// replaces a whole secret before a part of it.
func Secrets(spec string, header http.Header) []string {
	var s []string
	add := func(v string) {
		quoted := strconv.Quote(v) // an error may quote what it refuses with %q
		for _, f := range []string{v, unescape(v), url.QueryEscape(v), url.PathEscape(v), quoted[1 : len(quoted)-1]} {
			if f != "" && !slices.Contains(s, f) {
				s = append(s, f)
			}
		}
	}
	if p := rawPassword(spec); p != "" {
		add(p)
	}
	if u, err := url.Parse(spec); err == nil {
		if p, ok := u.User.Password(); ok && p != "" {
			// what an HTTP client sends for the user information, and a
			// receiver may echo
			add(base64.StdEncoding.EncodeToString([]byte(u.User.Username() + ":" + p)))
		}
	}
	if _, rest, ok := strings.Cut(spec, "?"); ok {
		for _, part := range strings.FieldsFunc(rest, func(r rune) bool { return r == '&' || r == '#' }) {
			if k, v, ok := strings.Cut(part, "="); ok && v != "" && Name(unescape(k)) {
				add(v)
			}
		}
	}
	for name, values := range header {
		if !Name(name) {
			continue
		}
		for _, v := range values {
			for _, part := range authorizationParts(v) {
				add(part)
			}
		}
	}
	slices.SortStableFunc(s, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	return s
}

// rawPassword is the password of spec's user information as written in
// spec, found in the text so that a spec url.Parse refuses has its
// password scrubbed too.
func rawPassword(spec string) string {
	_, rest, ok := strings.Cut(spec, "://")
	if !ok {
		return ""
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return ""
	}
	_, pw, _ := strings.Cut(rest[:at], ":")
	return pw
}

// authorizationParts are a header value and, when it reads as
// "Scheme credentials", the credentials and, for Basic, what they decode
// to: user:password and the password.
func authorizationParts(v string) []string {
	parts := []string{v}
	scheme, creds, ok := strings.Cut(strings.TrimSpace(v), " ")
	if !ok || creds == "" {
		return parts
	}
	creds = strings.TrimSpace(creds)
	parts = append(parts, creds)
	if !strings.EqualFold(scheme, "basic") {
		return parts
	}
	if dec, err := base64.StdEncoding.DecodeString(creds); err == nil {
		parts = append(parts, string(dec))
		if _, pw, ok := strings.Cut(string(dec), ":"); ok {
			parts = append(parts, pw)
		}
	}
	return parts
}
