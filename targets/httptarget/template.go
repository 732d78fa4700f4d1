package httptarget

import (
	"encoding/json"
	"net/url"
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
}

// path fills a path template: the resource is escaped as one path segment.
func (o op) path(tmpl string) string {
	return strings.NewReplacer(
		"{resource}", url.PathEscape(o.resource),
		"{token}", strconv.FormatUint(o.token, 10),
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

func jsonString(s string) string {
	b, _ := json.Marshal(s) // a string always encodes
	return string(b)
}
