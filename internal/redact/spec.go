package redact

import (
	"net/url"
	"strings"
)

// Spec returns a target spec safe to print and to name a run by: the
// password of its user information and the values of its credential-like
// query parameters (and fragment parameters) are replaced by Mask. A spec
// without a credential is returned unchanged, byte for byte. A spec that
// does not parse as a URL is returned unchanged only when it cannot hold
// user information or a query (no '@', '?' or '#'); otherwise it is
// reduced to its scheme. A spec without a scheme is treated as one that
// does not parse.
func Spec(spec string) string {
	u, err := url.Parse(spec)
	// Without a scheme, url.Parse may read user information as a path or
	// a fragment ("#://user:pw@h"), where it is not masked.
	if err != nil || u.Opaque != "" || u.Scheme == "" {
		return unparsed(spec)
	}
	changed := false
	if p, ok := u.User.Password(); ok && p != "" {
		u.User = url.UserPassword(u.User.Username(), Mask)
		changed = true
	}
	query, qChanged := maskPairs(u.RawQuery)
	fragment, fChanged := maskPairs(u.EscapedFragment())
	if !changed && !qChanged && !fChanged {
		return spec
	}
	u.RawQuery, u.Fragment, u.RawFragment = query, "", ""
	s := u.String()
	if fragment != "" {
		s += "#" + fragment
	}
	return s
}

// unparsed is Spec for a spec url.Parse refuses, or an opaque one
// ("user:pw@host" without a scheme parses as scheme "user"). A word with
// settings as a query ("redis?appendonly=yes", a server fencecheck starts
// itself) holds no user information: only its credential-like settings
// are masked.
func unparsed(spec string) string {
	if !strings.ContainsAny(spec, "@?#") {
		return spec
	}
	if word, query, ok := strings.Cut(spec, "?"); ok && validScheme(word) && !strings.ContainsAny(spec, "@#") {
		masked, _ := maskPairs(query)
		return word + "?" + masked
	}
	if scheme, _, ok := strings.Cut(spec, "://"); ok && validScheme(scheme) {
		return scheme + "://(unparsable)"
	}
	return "(unparsable target spec)"
}

// validScheme is RFC 3986's scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ).
func validScheme(s string) bool {
	for i, r := range s {
		letter := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
		if !letter && (i == 0 || !(r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.')) {
			return false
		}
	}
	return s != ""
}

// maskPairs replaces the values of credential-like names in an escaped
// name=value&… list, keeping the order and the escaping of everything
// else, and reports whether it replaced one.
func maskPairs(raw string) (string, bool) {
	if raw == "" {
		return raw, false
	}
	parts := strings.Split(raw, "&")
	changed := false
	for i, p := range parts {
		if k, v, ok := strings.Cut(p, "="); ok && v != "" && Name(unescape(k)) {
			parts[i] = k + "=" + Mask
			changed = true
		}
	}
	return strings.Join(parts, "&"), changed
}

// unescape is url.QueryUnescape, or s itself when it is not validly escaped.
func unescape(s string) string {
	if u, err := url.QueryUnescape(s); err == nil {
		return u
	}
	return s
}
