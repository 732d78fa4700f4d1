package httptarget

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
)

// Adapter maps a receiver's own HTTP API onto the operations fencecheck
// needs. The zero Adapter is the default protocol of docs/http-protocol.md:
//
//	PUT  {base}/resources/{resource}   Fencing-Token: {token}   body {value}   2xx accepted, 409/412 stale
//	GET  {base}/resources/{resource}   200 body = value, Fencing-Token header; 404 never written
//
// Every field is optional; an empty one keeps the default protocol's
// behaviour. Adapters are loaded from JSON files (LoadAdapter) so that a
// receiver with another API is testable without code.
type Adapter struct {
	Write WriteSpec `json:"write"`
	Read  ReadSpec  `json:"read"`
}

// WriteSpec says how a write is sent and how its answer is read.
//
// The resource may travel anywhere: in the path, a query parameter, a
// header or the JSON body; it must travel somewhere, or every resource
// would be the same to the receiver and a correct one would look broken.
type WriteSpec struct {
	// Method and Path: the request line. Path is a template with the
	// placeholders {resource} and {value} (path-escaped, each as one
	// segment) and {token}. Defaults: PUT, /resources/{resource}.
	Method string `json:"method"`
	Path   string `json:"path"`
	// Query and Headers add query parameters and headers, each value a
	// template with {resource}, {token} and {value} (query-escaped for the
	// query, as they are for a header).
	Query   map[string]string `json:"query"`
	Headers map[string]string `json:"headers"`
	// TokenIn says where the token goes: "header:NAME" (default
	// "header:Fencing-Token"), "query:NAME", "body" when the JSON body
	// template carries {token} itself, or "template" when any template
	// (path, query, headers, body) does.
	TokenIn string `json:"token_in"`
	// JSONBody is a JSON template for the body with the placeholders
	// {resource}, {value} and {token_string} (JSON strings) and {token} (a
	// JSON number). Empty: the body is the raw value.
	JSONBody    string `json:"json_body"`
	ContentType string `json:"content_type"`
	// Outcomes, when given, decide every answer's outcome alone: the first
	// rule that holds wins, and an answer no rule holds for is an unknown
	// outcome (see OutcomeRule). It cannot be combined with the fields
	// below, which are the older, exact-value way to say the same.
	Outcomes []OutcomeRule `json:"outcomes"`
	// AcceptedStatus lists the statuses that mean accepted (default: any
	// 2xx); StaleStatus those that mean rejected as stale (default 409,
	// 412). Any other status is an unknown outcome.
	AcceptedStatus []int `json:"accepted_status"`
	StaleStatus    []int `json:"stale_status"`
	// OutcomeFrom "field:PATH" reads the outcome of an answer with an
	// accepted status from a field of its JSON body (a dotted path), for
	// APIs that answer 200 and report errors in the body: a value in
	// AcceptedValues means accepted, one in StaleValues rejected, anything
	// else unknown. A missing field compares as null. Default "status".
	OutcomeFrom    string            `json:"outcome_from"`
	AcceptedValues []json.RawMessage `json:"accepted_values"`
	StaleValues    []json.RawMessage `json:"stale_values"`
}

// ReadSpec says how a read is sent and where its answer is.
type ReadSpec struct {
	// Method, Path, Query, Headers and JSONBody as for writes, with the
	// placeholder {resource} only. Defaults: GET, /resources/{resource},
	// no body.
	Method   string            `json:"method"`
	Path     string            `json:"path"`
	Query    map[string]string `json:"query"`
	Headers  map[string]string `json:"headers"`
	JSONBody string            `json:"json_body"`
	// ValueFrom: "body" (default), "header:NAME" or "field:PATH".
	ValueFrom string `json:"value_from"`
	// TokenFrom: "header:NAME" (default "header:Fencing-Token"),
	// "field:PATH" (a JSON number or a decimal string, exact up to
	// 2^64-1), or "none" when the receiver does not report tokens.
	TokenFrom string `json:"token_from"`
	// NotFound, when given, lists the conditions of which any means never
	// written (default: status 404). It cannot be combined with the fields
	// below, the older way to say the same: NotFoundStatus lists the
	// statuses that mean never written (default 404); NotFoundFrom
	// "field:PATH" with NotFoundValues also recognizes a 2xx answer whose
	// field says so.
	NotFound       []When            `json:"not_found"`
	NotFoundStatus []int             `json:"not_found_status"`
	NotFoundFrom   string            `json:"not_found_from"`
	NotFoundValues []json.RawMessage `json:"not_found_values"`
}

// TokenHeader is the default protocol's header for fencing tokens.
const TokenHeader = "Fencing-Token"

// LoadAdapter reads an adapter from a JSON file. Unknown fields are an
// error, so that a misspelt option is not silently ignored. Each problem
// is reported on a line of its own, starting with the file's name and
// the field ("adapter.json: write.outcomes[2].match.regex: …").
func LoadAdapter(path string) (Adapter, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Adapter{}, fmt.Errorf("read adapter: %w", err)
	}
	a, err := ParseAdapter(data)
	if err != nil {
		return Adapter{}, fileError{path, err}
	}
	return a, nil
}

// fileError puts an adapter file's name before every line of its error.
type fileError struct {
	path string
	err  error
}

func (e fileError) Error() string {
	lines := strings.Split(e.err.Error(), "\n")
	for i, l := range lines {
		lines[i] = e.path + ": " + l
	}
	return strings.Join(lines, "\n")
}

func (e fileError) Unwrap() error { return e.err }

// ParseAdapter decodes and validates an adapter.
func ParseAdapter(data []byte) (Adapter, error) {
	var a Adapter
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return Adapter{}, decodeError(data, dec.InputOffset(), err)
	}
	if dec.More() {
		return Adapter{}, fmt.Errorf("%s: more than one JSON value", position(data, dec.InputOffset()))
	}
	return a, a.Validate()
}

// decodeError says where in the file a decoding error is, and which
// field a value of the wrong type is for.
func decodeError(data []byte, offset int64, err error) error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		offset = syntax.Offset
	case errors.As(err, &typ):
		return fmt.Errorf("%s: %s: got JSON %s, want %s", position(data, typ.Offset), strings.ReplaceAll(typ.Field, ".When", ""), typ.Value, typ.Type)
	}
	return fmt.Errorf("%s: %w", position(data, offset), err)
}

// position is "line L, column C" of a byte offset.
func position(data []byte, offset int64) string {
	offset = min(max(offset, 0), int64(len(data)))
	before := data[:offset]
	line := bytes.Count(before, []byte("\n")) + 1
	col := len(before) - bytes.LastIndexByte(before, '\n')
	return fmt.Sprintf("line %d, column %d", line, col)
}

// withDefaults fills the empty fields with the default protocol.
func (a Adapter) withDefaults() Adapter {
	w, r := &a.Write, &a.Read
	w.Method = or(w.Method, http.MethodPut)
	w.Path = or(w.Path, "/resources/{resource}")
	w.TokenIn = or(w.TokenIn, "header:"+TokenHeader)
	w.OutcomeFrom = or(w.OutcomeFrom, "status")
	if w.StaleStatus == nil {
		w.StaleStatus = []int{http.StatusConflict, http.StatusPreconditionFailed}
	}
	if w.ContentType == "" && w.JSONBody != "" {
		w.ContentType = "application/json"
	}
	r.Method = or(r.Method, http.MethodGet)
	r.Path = or(r.Path, "/resources/{resource}")
	r.ValueFrom = or(r.ValueFrom, "body")
	r.TokenFrom = or(r.TokenFrom, "header:"+TokenHeader)
	if r.NotFoundStatus == nil {
		r.NotFoundStatus = []int{http.StatusNotFound}
	}
	return a
}

// Validate reports every problem with the adapter, each naming its field.
func (a Adapter) Validate() error {
	_, err := a.compile()
	return err
}

// compiled is an adapter with its defaults filled in and its rules
// compiled: what a Target uses.
type compiled struct {
	Adapter
	outcomes []outcomeRule
	notFound []matcher
}

// outcomeRule is a compiled OutcomeRule; name is where it came from, for
// errors.
type outcomeRule struct {
	matcher
	outcome string
	name    string
}

// compile fills in the defaults, checks everything and compiles the
// rules; its error lists every problem, one a line, each naming its
// field.
func (a Adapter) compile() (compiled, error) {
	d := compiled{Adapter: a.withDefaults()}
	var p problems
	w, r := a.Write, a.Read
	if len(w.Outcomes) > 0 && (w.AcceptedStatus != nil || w.StaleStatus != nil || w.OutcomeFrom != "" || w.AcceptedValues != nil || w.StaleValues != nil) {
		p.add("write.outcomes", "cannot be combined with accepted_status, stale_status, outcome_from, accepted_values or stale_values")
	}
	if r.NotFound != nil && (r.NotFoundStatus != nil || r.NotFoundFrom != "" || r.NotFoundValues != nil) {
		p.add("read.not_found", "cannot be combined with not_found_status, not_found_from or not_found_values")
	}
	d.Write.check(&p)
	d.Read.check(&p)
	for i, rule := range d.Write.outcomeRules() {
		name := fmt.Sprintf("write.outcomes[%d]", i)
		if len(w.Outcomes) == 0 {
			name = "write (accepted_status, stale_status, outcome_from, accepted_values, stale_values)"
		}
		m, err := rule.compile()
		p.under(name, err)
		switch rule.Outcome {
		case OutcomeAccepted, OutcomeRejected, OutcomeUnknown:
		default:
			p.add(name+".outcome", "%q: want accepted, rejected or unknown", rule.Outcome)
		}
		d.outcomes = append(d.outcomes, outcomeRule{m, rule.Outcome, name})
	}
	for i, when := range d.Read.notFoundRules() {
		name := fmt.Sprintf("read.not_found[%d]", i)
		if r.NotFound == nil {
			name = "read (not_found_status, not_found_from, not_found_values)"
		}
		m, err := when.compile()
		p.under(name, err)
		d.notFound = append(d.notFound, m)
	}
	return d, p.err()
}

// check records the problems of a write spec with its defaults filled in.
func (w WriteSpec) check(p *problems) {
	t := templates{path: w.Path, query: w.Query, headers: w.Headers, body: w.JSONBody}
	t.check(p, "write", w.Method, writePlaceholders)
	switch kind, name, _ := strings.Cut(w.TokenIn, ":"); {
	case kind == "header" && name != "":
		if err := CheckHeader(name, ""); err != nil {
			p.add("write.token_in", "%v", err)
		}
	case kind == "query" && name != "":
	case w.TokenIn == "body":
		if !carriesToken(w.JSONBody) {
			p.add("write.token_in", `"body" needs {token} or {token_string} in write.json_body`)
		}
	case w.TokenIn == "template":
		if !t.any(carriesToken) {
			p.add("write.token_in", `"template" needs {token} or {token_string} in a template (path, query, headers, json_body)`)
		}
	default:
		p.add("write.token_in", "%q: want header:NAME, query:NAME, body or template", w.TokenIn)
	}
	if w.JSONBody != "" && !t.any(func(s string) bool { return strings.Contains(s, "{value}") }) {
		p.add("write.json_body", "must contain {value} (or path, query or headers must): the value would not be sent")
	}
	if w.OutcomeFrom != "status" {
		if !isField(w.OutcomeFrom) {
			p.add("write.outcome_from", "%q: want status or field:PATH", w.OutcomeFrom)
		}
		if len(w.AcceptedValues) == 0 || len(w.StaleValues) == 0 {
			p.add("write.outcome_from", "a field outcome needs accepted_values and stale_values")
		}
	}
}

// check records the problems of a read spec with its defaults filled in.
func (r ReadSpec) check(p *problems) {
	t := templates{path: r.Path, query: r.Query, headers: r.Headers, body: r.JSONBody}
	t.check(p, "read", r.Method, readPlaceholders)
	if !isSource(r.ValueFrom, true) {
		p.add("read.value_from", "%q: want body, header:NAME or field:PATH", r.ValueFrom)
	}
	if r.TokenFrom != "none" && !isSource(r.TokenFrom, false) {
		p.add("read.token_from", "%q: want header:NAME, field:PATH or none", r.TokenFrom)
	}
	if r.NotFoundFrom != "" && (!isField(r.NotFoundFrom) || len(r.NotFoundValues) == 0) {
		p.add("read.not_found_from", "%q: want field:PATH, with not_found_values", r.NotFoundFrom)
	}
}

// outcomeRules are the write's outcome rules: Outcomes, or the older
// fields said as rules.
func (w WriteSpec) outcomeRules() []OutcomeRule {
	if len(w.Outcomes) > 0 {
		return w.Outcomes
	}
	accepted := w.AcceptedStatus
	if len(accepted) == 0 {
		accepted = successStatuses()
	}
	var rules []OutcomeRule
	if len(w.StaleStatus) > 0 {
		rules = append(rules, OutcomeRule{When{Status: w.StaleStatus}, OutcomeRejected})
	}
	if w.OutcomeFrom == "status" {
		return append(rules, OutcomeRule{When{Status: accepted}, OutcomeAccepted})
	}
	for _, v := range w.AcceptedValues {
		rules = append(rules, OutcomeRule{When{accepted, &Match{From: w.OutcomeFrom, Equals: v}}, OutcomeAccepted})
	}
	for _, v := range w.StaleValues {
		rules = append(rules, OutcomeRule{When{accepted, &Match{From: w.OutcomeFrom, Equals: v}}, OutcomeRejected})
	}
	return rules
}

// notFoundRules are the read's not-found conditions: NotFound, or the
// older fields said as conditions.
func (r ReadSpec) notFoundRules() []When {
	if r.NotFound != nil {
		return r.NotFound
	}
	var rules []When
	if len(r.NotFoundStatus) > 0 {
		rules = append(rules, When{Status: r.NotFoundStatus})
	}
	for _, v := range r.NotFoundValues {
		rules = append(rules, When{successStatuses(), &Match{From: r.NotFoundFrom, Equals: v}})
	}
	return rules
}

// successStatuses are the 2xx statuses.
func successStatuses() []int {
	s := make([]int, 0, 100)
	for i := 200; i < 300; i++ {
		s = append(s, i)
	}
	return s
}

func isField(s string) bool {
	kind, path, _ := strings.Cut(s, ":")
	return kind == "field" && path != ""
}

func isSource(s string, bodyOK bool) bool {
	kind, name, _ := strings.Cut(s, ":")
	return s == "body" && bodyOK || (kind == "header" || kind == "field") && name != ""
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
