package httptarget

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// The outcomes a rule can give a write. There is no separate outcome for
// a rejected repeat of the current token: the history records one
// "rejected", and the checker's policy (strict or accept-equal) decides
// whether a rejection of an equal token was right.
const (
	OutcomeAccepted = "accepted"
	OutcomeRejected = "rejected"
	OutcomeUnknown  = "unknown"
)

// OutcomeRule gives the answers that satisfy When an outcome. Rules are
// tried in order and the first that holds decides; an answer no rule
// holds for is an unknown outcome, never a default verdict, because a
// write counted as accepted or rejected wrongly is a wrong verdict. An
// explicit "unknown" rule stops the search early, for error answers that
// a later, broader rule would otherwise take.
type OutcomeRule struct {
	When
	Outcome string `json:"outcome"`
}

// When is a condition on an answer: its status is one of Status (when
// given) and Match holds (when given). It needs at least one of them.
type When struct {
	Status []int  `json:"status"`
	Match  *Match `json:"match"`
}

// Match tests one part of an answer, From, by exactly one of Equals,
// Prefix or Regex.
//
// From is "status" (the status as decimal text), "body" (the whole body
// as text), "header:NAME" (the header's values joined by ", "; absent: no
// match) or "field:PATH" (a dotted path into the JSON body; a body that is
// not JSON, or a missing field, does not match Prefix or Regex, and a
// missing field Equals null).
//
// Equals is a JSON value: for a field, compared as JSON (key order and
// spacing aside; 42 and 42.0 differ); for the text parts, a JSON string
// equal to the text (for "status" a number too). Prefix and Regex test
// the text: a string field's content, any other field's JSON. Regex is
// Go's RE2 syntax and unanchored: write ^…$ to match the whole text.
type Match struct {
	From   string          `json:"from"`
	Equals json.RawMessage `json:"equals,omitempty"`
	Prefix *string         `json:"prefix,omitempty"`
	Regex  *string         `json:"regex,omitempty"`
}

// matcher is a compiled When.
type matcher struct {
	status []int
	from   string // "status", "body", "header", "field" or "" (no match)
	name   string // the header's name or the field's path
	// Exactly one test: equalJSON (canonical JSON, fields only), equalText,
	// prefix or re.
	equalJSON []byte
	equalText *string
	prefix    *string
	re        *regexp.Regexp
}

// compile checks a When and compiles it; its errors name the part of When
// that is wrong, relative to it ("match.regex: …").
func (w When) compile() (matcher, error) {
	m := matcher{status: w.Status}
	var p problems
	for i, s := range w.Status {
		if s < 100 || s > 599 {
			p.add(fmt.Sprintf("status[%d]", i), "%d is not an HTTP status (100 to 599)", s)
		}
	}
	if w.Match == nil {
		if len(w.Status) == 0 {
			p.add("status", "a rule needs status, match or both")
		}
		return m, p.err()
	}
	x := w.Match
	kind, name, _ := strings.Cut(x.From, ":")
	switch {
	case x.From == "status", x.From == "body":
		m.from = x.From
	case (kind == "header" || kind == "field") && name != "":
		m.from, m.name = kind, name
		if kind == "header" {
			if err := CheckHeader(name, ""); err != nil {
				p.add("match.from", "%v", err)
			}
		}
	default:
		p.add("match.from", "%q: want status, body, header:NAME or field:PATH", x.From)
	}
	tests := 0
	if x.Equals != nil {
		tests++
		if err := m.compileEquals(x.Equals); err != nil {
			p.add("match.equals", "%v", err)
		}
	}
	if x.Prefix != nil {
		tests++
		m.prefix = x.Prefix
	}
	if x.Regex != nil {
		tests++
		re, err := regexp.Compile(*x.Regex)
		if err != nil {
			p.add("match.regex", "%v", err)
		}
		m.re = re
	}
	if tests != 1 {
		p.add("match", "want exactly one of equals, prefix and regex, got %d", tests)
	}
	return m, p.err()
}

// compileEquals keeps a field's expected value as canonical JSON and a
// text part's as its text.
func (m *matcher) compileEquals(raw json.RawMessage) error {
	v, err := decodeJSON(raw)
	if err != nil {
		return fmt.Errorf("%s: %w", raw, err)
	}
	if m.from == "field" {
		m.equalJSON, err = canonical(v)
		return err
	}
	switch v := v.(type) {
	case string:
		m.equalText = &v
		return nil
	case json.Number:
		if m.from == "status" {
			s := v.String()
			m.equalText = &s
			return nil
		}
	}
	return fmt.Errorf("%s is not a JSON string: %s text is compared with a string", raw, or(m.from, "the"))
}

// holds reports whether the answer satisfies the condition.
func (m matcher) holds(a *answer) bool {
	if len(m.status) > 0 && !slices.Contains(m.status, a.status) {
		return false
	}
	if m.from == "" {
		return true
	}
	text, ok := m.text(a)
	switch {
	case m.equalJSON != nil:
		return bytes.Equal(m.fieldJSON(a), m.equalJSON)
	case !ok:
		return false
	case m.equalText != nil:
		return text == *m.equalText
	case m.prefix != nil:
		return strings.HasPrefix(text, *m.prefix)
	}
	return m.re != nil && m.re.MatchString(text)
}

// text is the part of the answer the condition tests; ok is false when
// it is absent.
func (m matcher) text(a *answer) (string, bool) {
	switch m.from {
	case "status":
		return strconv.Itoa(a.status), true
	case "body":
		return string(a.body), true
	case "header":
		vs := a.header.Values(m.name)
		return strings.Join(vs, ", "), len(vs) > 0
	}
	doc, err := a.document()
	if err != nil {
		return "", false
	}
	v, ok := doc.field(m.name)
	if !ok {
		return "", false
	}
	if s, isString := v.(string); isString {
		return s, true
	}
	b, err := canonical(v)
	return string(b), err == nil
}

// fieldJSON is the canonical JSON of the field, null when it is missing,
// nil when the body is not JSON.
func (m matcher) fieldJSON(a *answer) []byte {
	doc, err := a.document()
	if err != nil {
		return nil
	}
	v, _ := doc.field(m.name)
	b, err := canonical(v)
	if err != nil {
		return nil
	}
	return b
}

// answer is a response whose body is decoded as JSON at most once, when
// a condition first needs it.
type answer struct {
	*response
	doc    document
	docErr error
	parsed bool
}

func (a *answer) document() (document, error) {
	if !a.parsed {
		a.doc, a.docErr = parseDocument(a.body)
		a.parsed = true
	}
	return a.doc, a.docErr
}

// decodeJSON decodes one JSON value, numbers as json.Number so that
// tokens above 2^53 keep every digit. Its errors do not quote raw, which
// may be a whole answer.
func decodeJSON(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	if dec.More() {
		return nil, errors.New("not JSON: more than one value")
	}
	return v, nil
}

// canonical is the JSON of a decoded value with sorted keys, numbers as
// written and no HTML escaping: two values are equal as JSON when their
// canonical forms are.
func canonical(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
