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
type WriteSpec struct {
	// Method and Path: the request line. Path is a template with the
	// placeholders {resource} (path-escaped) and {token}. Defaults: PUT,
	// /resources/{resource}.
	Method string `json:"method"`
	Path   string `json:"path"`
	// TokenIn says where the token goes: "header:NAME" (default
	// "header:Fencing-Token"), "query:NAME", or "body" when the JSON body
	// template carries {token} itself.
	TokenIn string `json:"token_in"`
	// JSONBody is a JSON template for the body with the placeholders
	// {resource}, {value} and {token_string} (JSON strings) and {token} (a
	// JSON number). Empty: the body is the raw value.
	JSONBody    string `json:"json_body"`
	ContentType string `json:"content_type"`
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
	// Method, Path and JSONBody as for writes, without {token} and {value}.
	// Defaults: GET, /resources/{resource}, no body.
	Method   string `json:"method"`
	Path     string `json:"path"`
	JSONBody string `json:"json_body"`
	// ValueFrom: "body" (default), "header:NAME" or "field:PATH".
	ValueFrom string `json:"value_from"`
	// TokenFrom: "header:NAME" (default "header:Fencing-Token"),
	// "field:PATH", or "none" when the receiver does not report tokens.
	TokenFrom string `json:"token_from"`
	// NotFoundStatus lists the statuses that mean never written (default
	// 404). NotFoundFrom "field:PATH" with NotFoundValues also recognizes
	// a 200 answer whose field says so.
	NotFoundStatus []int             `json:"not_found_status"`
	NotFoundFrom   string            `json:"not_found_from"`
	NotFoundValues []json.RawMessage `json:"not_found_values"`
}

// TokenHeader is the default protocol's header for fencing tokens.
const TokenHeader = "Fencing-Token"

// LoadAdapter reads an adapter from a JSON file. Unknown fields are an
// error, so that a misspelt option is not silently ignored.
func LoadAdapter(path string) (Adapter, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Adapter{}, fmt.Errorf("read adapter: %w", err)
	}
	a, err := ParseAdapter(data)
	if err != nil {
		return Adapter{}, fmt.Errorf("adapter %s: %w", path, err)
	}
	return a, nil
}

// ParseAdapter decodes and validates an adapter.
func ParseAdapter(data []byte) (Adapter, error) {
	var a Adapter
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return Adapter{}, err
	}
	return a, a.Validate()
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
	d := a.withDefaults()
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", field, fmt.Sprintf(format, args...)))
	}
	w, r := d.Write, d.Read
	if !strings.HasPrefix(w.Path, "/") || !strings.Contains(w.Path, "{resource}") {
		bad("write.path", "%q must start with / and contain {resource}", w.Path)
	}
	if !strings.HasPrefix(r.Path, "/") || !strings.Contains(r.Path, "{resource}") && !strings.Contains(r.JSONBody, "{resource}") {
		bad("read.path", "%q must start with / and contain {resource} (or read.json_body must)", r.Path)
	}
	switch kind, name, _ := strings.Cut(w.TokenIn, ":"); {
	case kind == "header" && name != "", kind == "query" && name != "":
	case w.TokenIn == "body":
		if !strings.Contains(w.JSONBody, "{token}") && !strings.Contains(w.JSONBody, "{token_string}") {
			bad("write.token_in", `"body" needs {token} or {token_string} in write.json_body`)
		}
	default:
		bad("write.token_in", "%q: want header:NAME, query:NAME or body", w.TokenIn)
	}
	if w.JSONBody != "" && !strings.Contains(w.JSONBody, "{value}") {
		bad("write.json_body", "must contain {value}")
	}
	if w.OutcomeFrom != "status" {
		if !isField(w.OutcomeFrom) {
			bad("write.outcome_from", "%q: want status or field:PATH", w.OutcomeFrom)
		}
		if len(w.AcceptedValues) == 0 || len(w.StaleValues) == 0 {
			bad("write.outcome_from", "a field outcome needs accepted_values and stale_values")
		}
	}
	if !isSource(r.ValueFrom, true) {
		bad("read.value_from", "%q: want body, header:NAME or field:PATH", r.ValueFrom)
	}
	if r.TokenFrom != "none" && !isSource(r.TokenFrom, false) {
		bad("read.token_from", "%q: want header:NAME, field:PATH or none", r.TokenFrom)
	}
	if r.NotFoundFrom != "" && (!isField(r.NotFoundFrom) || len(r.NotFoundValues) == 0) {
		bad("read.not_found_from", "%q: want field:PATH, with not_found_values", r.NotFoundFrom)
	}
	for _, list := range [][]json.RawMessage{w.AcceptedValues, w.StaleValues, r.NotFoundValues} {
		for _, v := range list {
			if !json.Valid(v) {
				bad("values", "%s is not JSON", v)
			}
		}
	}
	return errors.Join(errs...)
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
