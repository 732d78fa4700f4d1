package httptarget

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// op is what a template is filled with.
type op struct {
	resource string
	token    uint64
	value    string
	// tokenless writes send no token (WriteWithoutToken).
	tokenless bool
	// trace is the operation's trace id ({trace_id}), empty for a
	// request outside an operation or to a target that carries none.
	trace string
}

// path fills a path template: the resource and the value are escaped as
// one path segment each.
func (o op) path(tmpl string) string {
	return strings.NewReplacer(
		"{resource}", url.PathEscape(o.resource),
		"{value}", url.PathEscape(o.value),
		"{token}", strconv.FormatUint(o.token, 10),
	).Replace(tmpl)
}

// text fills a query or header template with the plain texts; the query
// is escaped when it is encoded, and a header that cannot be sent fails
// the request before it leaves.
func (o op) text(tmpl string) string {
	return strings.NewReplacer(
		"{resource}", o.resource,
		"{value}", o.value,
		"{token}", strconv.FormatUint(o.token, 10),
		"{trace_id}", o.trace,
	).Replace(tmpl)
}

// jsonBody fills a JSON body template: strings become JSON strings, the
// token a JSON number ({token}) or a JSON string ({token_string}, for APIs
// that keep 64-bit integers away from float64 parsers).
func (o op) jsonBody(tmpl string) string {
	tok := strconv.FormatUint(o.token, 10)
	return strings.NewReplacer(
		"{resource}", jsonString(o.resource),
		"{value}", jsonString(o.value),
		"{token_string}", `"`+tok+`"`,
		"{token}", tok,
	).Replace(tmpl)
}

// fillText fills each template of a query or header map, in name order;
// a tokenless write leaves out the entries that carry the token.
func (o op) fillText(m map[string]string, set func(name, value string)) {
	for _, name := range slices.Sorted(maps.Keys(m)) {
		if o.tokenless && carriesToken(m[name]) {
			continue
		}
		set(name, o.text(m[name]))
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s) // a string always encodes
	return string(b)
}

// templates are the parts of a request that an adapter writes.
type templates struct {
	path    string
	query   map[string]string
	headers map[string]string
	body    string
}

// placeholders lists what each part of a request may hold.
type placeholders struct{ path, text, body []string }

var (
	writePlaceholders = placeholders{
		path: []string{"{resource}", "{token}", "{value}"},
		text: []string{"{resource}", "{token}", "{trace_id}", "{value}"},
		body: []string{"{resource}", "{token}", "{token_string}", "{value}"},
	}
	readPlaceholders = placeholders{
		path: []string{"{resource}"},
		text: []string{"{resource}", "{trace_id}"},
		body: []string{"{resource}"},
	}
)

// placeholder finds what looks like one: a JSON object starts with {"
// and does not.
var placeholder = regexp.MustCompile(`\{[A-Za-z_]+\}`)

// any reports whether some template holds.
func (t templates) any(f func(string) bool) bool {
	return f(t.path) || f(t.body) || slices.ContainsFunc(slices.Collect(maps.Values(t.query)), f) ||
		slices.ContainsFunc(slices.Collect(maps.Values(t.headers)), f)
}

// check reports the problems of a request's templates: an unknown
// placeholder (a typo would be sent as it is), a resource sent nowhere,
// a header that cannot be sent, a body that is not JSON once filled.
// side is "write" or "read".
func (t templates) check(p *problems, side, method string, allowed placeholders) {
	bad := func(field, format string, args ...any) { p.add(side+"."+field, format, args...) }
	unknown := func(field, tmpl string, allowed []string) (found bool) {
		for _, ph := range placeholder.FindAllString(tmpl, -1) {
			if !slices.Contains(allowed, ph) {
				bad(field, "unknown placeholder %s: want %s", ph, strings.Join(allowed, ", "))
				found = true
			}
		}
		return found
	}
	if method == "" || strings.IndexFunc(method, func(r rune) bool { return !isTokenChar(r) }) >= 0 {
		bad("method", "%q is not an HTTP method", method)
	}
	if !strings.HasPrefix(t.path, "/") {
		bad("path", "%q must start with /", t.path)
	}
	unknown("path", t.path, allowed.path)
	for _, name := range slices.Sorted(maps.Keys(t.query)) {
		if name == "" {
			bad("query", "empty parameter name")
		}
		unknown(fmt.Sprintf("query[%q]", name), t.query[name], allowed.text)
	}
	for _, name := range slices.Sorted(maps.Keys(t.headers)) {
		if err := CheckHeader(name, t.headers[name]); err != nil {
			bad(fmt.Sprintf("headers[%q]", name), "%v", err)
		}
		unknown(fmt.Sprintf("headers[%q]", name), t.headers[name], allowed.text)
	}
	if t.body != "" && !unknown("json_body", t.body, allowed.body) {
		sample := op{resource: "r", token: 1, value: "v"}.jsonBody(t.body)
		if !json.Valid([]byte(sample)) {
			bad("json_body", "not JSON once filled in (%s); placeholders are JSON values, write {resource}, not \"{resource}\"", sample)
		}
	}
	if !t.any(func(s string) bool { return strings.Contains(s, "{resource}") }) {
		bad("path", "%q has no {resource}, and no query, header or json_body has: every resource would be the same to the receiver", t.path)
	}
}

// carriesToken reports whether a template sends the token.
func carriesToken(tmpl string) bool {
	return strings.Contains(tmpl, "{token}") || strings.Contains(tmpl, "{token_string}")
}
