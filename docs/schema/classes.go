package schema

import (
	"bytes"
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Validating a history line by the schema costs tens of microseconds, and
// hundreds under the race detector: the tests write millions of lines,
// and validating each would take minutes. But the lines fall into few
// classes: two lines whose members have the same names, in the same
// order, and values that every keyword of the schema judges alike (the
// same JSON type, the same enum or const value or none, the same side of
// every bound and length, the same match of every pattern) get the same
// verdict. So each class is validated once per process, and a line is
// classified by a scan far cheaper than the validation.
//
// The classes are derived from the schema itself (newClasses), which
// must use only keywords that look at the names of an object's members
// or at flat values; with any other keyword every line is validated in
// full. A line the scan does not take (escapes, nesting, numbers that
// are not plain integers, a name twice) is validated in full too, and so
// is every line of an invalid class, for its message.

// rules are what the schema's keywords ask of one property's value.
type rules struct {
	literals map[string]bool // string values of enum and const
	numbers  []*big.Int      // integer values of enum and const
	bounds   []*big.Int      // minimum, maximum and the exclusive ones
	lengths  []int           // minLength and maxLength
	patterns []*regexp.Regexp
}

// classes classifies lines for one schema.
type classes struct {
	props map[string]*rules // every property the schema names
	mu    sync.Mutex
	seen  map[string]bool // class → valid
}

// Keywords by where they may stand. Annotations change no verdict;
// format is one, as the compiler is not told to assert formats.
var (
	annotations = set("$schema", "$id", "$comment", "title", "description", "examples", "default", "deprecated", "readOnly", "writeOnly", "format", "$defs")
	applicators = set("allOf", "anyOf", "oneOf", "not", "if", "then", "else", "$ref")
	objectWords = set("type", "required", "properties", "dependentSchemas", "dependentRequired")
	valueWords  = set("type", "enum", "const", "pattern", "minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")
)

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// newClasses derives the rules of each property from the schema doc, or
// says which keyword it cannot account for.
func newClasses(doc any) (*classes, error) {
	d := &deriver{root: doc, props: map[string]*rules{}, visited: map[string]bool{}}
	if err := d.visit(doc, "", "#"); err != nil {
		return nil, err
	}
	return &classes{props: d.props, seen: map[string]bool{}}, nil
}

type deriver struct {
	root    any
	props   map[string]*rules
	visited map[string]bool // "$ref target|property"
}

func (d *deriver) rulesOf(prop string) *rules {
	r := d.props[prop]
	if r == nil {
		r = &rules{literals: map[string]bool{}}
		d.props[prop] = r
	}
	return r
}

// visit walks a schema applied to the whole line (prop == "") or to the
// value of the property prop.
func (d *deriver) visit(node any, prop, at string) error {
	if _, ok := node.(bool); ok {
		return nil
	}
	obj, ok := node.(map[string]any)
	if !ok {
		return fmt.Errorf("%s: not a schema", at)
	}
	for k, v := range obj {
		where := at + "/" + k
		var err error
		switch {
		case annotations[k]:
		case applicators[k]:
			err = d.applicator(k, v, prop, where)
		case prop == "" && objectWords[k]:
			err = d.objectWord(k, v, where)
		case prop != "" && valueWords[k]:
			err = d.valueWord(k, v, prop, where)
		default:
			return fmt.Errorf("%s: a keyword the line classes do not account for", where)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (d *deriver) applicator(k string, v any, prop, at string) error {
	switch k {
	case "$ref":
		ref, _ := v.(string)
		if !strings.HasPrefix(ref, "#/") {
			return fmt.Errorf("%s: only local references are accounted for", at)
		}
		key := ref + "|" + prop
		if d.visited[key] {
			return nil
		}
		d.visited[key] = true
		target, err := d.pointer(ref[1:])
		if err != nil {
			return fmt.Errorf("%s: %w", at, err)
		}
		return d.visit(target, prop, ref)
	case "allOf", "anyOf", "oneOf":
		list, _ := v.([]any)
		for i, s := range list {
			if err := d.visit(s, prop, fmt.Sprintf("%s/%d", at, i)); err != nil {
				return err
			}
		}
		return nil
	}
	return d.visit(v, prop, at)
}

func (d *deriver) pointer(p string) (any, error) {
	node := d.root
	for _, part := range strings.Split(strings.TrimPrefix(p, "/"), "/") {
		m, ok := node.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: unresolvable", p)
		}
		if node, ok = m[part]; !ok {
			return nil, fmt.Errorf("%s: unresolvable", p)
		}
	}
	return node, nil
}

func (d *deriver) objectWord(k string, v any, at string) error {
	switch k {
	case "type":
		if v != "object" {
			return fmt.Errorf("%s: a line is an object", at)
		}
	case "required":
		names, _ := v.([]any)
		for _, n := range names {
			s, _ := n.(string)
			d.rulesOf(s)
		}
	case "dependentRequired":
		m, _ := v.(map[string]any)
		for name, names := range m {
			d.rulesOf(name)
			list, _ := names.([]any)
			for _, n := range list {
				s, _ := n.(string)
				d.rulesOf(s)
			}
		}
	case "properties", "dependentSchemas":
		m, _ := v.(map[string]any)
		for name, s := range m {
			d.rulesOf(name)
			prop := name
			if k == "dependentSchemas" {
				prop = ""
			}
			if err := d.visit(s, prop, at+"/"+name); err != nil {
				return err
			}
		}
	}
	return nil
}

func (d *deriver) valueWord(k string, v any, prop, at string) error {
	r := d.rulesOf(prop)
	switch k {
	case "type":
	case "enum", "const":
		values := []any{v}
		if k == "enum" {
			values, _ = v.([]any)
		}
		for _, val := range values {
			switch x := val.(type) {
			case string:
				r.literals[x] = true
			case nil, bool:
			default:
				n, ok := integer(x)
				if !ok {
					return fmt.Errorf("%s: only integer literals are accounted for", at)
				}
				r.numbers = append(r.numbers, n)
			}
		}
	case "pattern":
		s, _ := v.(string)
		re, err := regexp.Compile(s)
		if err != nil {
			return fmt.Errorf("%s: %w", at, err)
		}
		r.patterns = append(r.patterns, re)
	case "minLength", "maxLength":
		n, ok := integer(v)
		if !ok || !n.IsInt64() {
			return fmt.Errorf("%s: not a length", at)
		}
		r.lengths = append(r.lengths, int(n.Int64()))
	default: // the bounds
		n, ok := integer(v)
		if !ok {
			return fmt.Errorf("%s: only integer bounds are accounted for", at)
		}
		r.bounds = append(r.bounds, n)
	}
	return nil
}

// integer is a JSON number of the schema as an integer, if it is one.
func integer(v any) (*big.Int, bool) {
	r, ok := new(big.Rat).SetString(fmt.Sprint(v))
	if !ok || !r.IsInt() {
		return nil, false
	}
	return new(big.Int).Set(r.Num()), true
}

// member is a name and its value, as the scan found them.
type member struct {
	name string
	kind byte // '"' a string, '0' a number, 't', 'f' or 'n' a literal
	raw  []byte
}

// errUnscanned says the scan does not take a line: it is validated in full.
var errUnscanned = errors.New("not scanned")

// scan splits a line that is a flat JSON object of plain values into its
// members: strings without escapes or control characters in valid UTF-8,
// non-negative integers of up to 18 digits without a leading zero, true,
// false and null, every name once. It takes nothing else, so that what it
// takes encoding/json reads as the same members.
func scan(line []byte, out []member) ([]member, error) {
	p := skipSpace(line, 0)
	if p >= len(line) || line[p] != '{' {
		return nil, errUnscanned
	}
	p = skipSpace(line, p+1)
	if p < len(line) && line[p] == '}' {
		return out, end(line, p+1)
	}
	for {
		name, q, ok := plainString(line, p)
		if !ok {
			return nil, errUnscanned
		}
		p = skipSpace(line, q)
		if p >= len(line) || line[p] != ':' {
			return nil, errUnscanned
		}
		p = skipSpace(line, p+1)
		m := member{name: string(name)}
		for _, o := range out {
			if o.name == m.name {
				return nil, errUnscanned
			}
		}
		if p >= len(line) {
			return nil, errUnscanned
		}
		switch c := line[p]; {
		case c == '"':
			m.kind = '"'
			m.raw, q, ok = plainString(line, p)
		case c >= '0' && c <= '9':
			m.kind = '0'
			q = p
			for q < len(line) && line[q] >= '0' && line[q] <= '9' {
				q++
			}
			m.raw = line[p:q]
			ok = len(m.raw) <= 18 && (m.raw[0] != '0' || len(m.raw) == 1)
		default:
			ok = false
			for _, lit := range []string{"true", "false", "null"} {
				if bytes.HasPrefix(line[p:], []byte(lit)) {
					m.kind, q, ok = lit[0], p+len(lit), true
				}
			}
		}
		if !ok {
			return nil, errUnscanned
		}
		out = append(out, m)
		p = skipSpace(line, q)
		if p >= len(line) {
			return nil, errUnscanned
		}
		switch line[p] {
		case ',':
			p = skipSpace(line, p+1)
			continue
		case '}':
			return out, end(line, p+1)
		}
		return nil, errUnscanned
	}
}

// end checks that only white space follows the object.
func end(line []byte, p int) error {
	if skipSpace(line, p) != len(line) {
		return errUnscanned
	}
	return nil
}

func skipSpace(line []byte, p int) int {
	for p < len(line) && (line[p] == ' ' || line[p] == '\t' || line[p] == '\r' || line[p] == '\n') {
		p++
	}
	return p
}

// plainString is the string at p, without its quotes, and where it ends,
// if it has no escape and no control character and is valid UTF-8.
func plainString(line []byte, p int) ([]byte, int, bool) {
	if p >= len(line) || line[p] != '"' {
		return nil, 0, false
	}
	q := bytes.IndexByte(line[p+1:], '"')
	if q < 0 {
		return nil, 0, false
	}
	s := line[p+1 : p+1+q]
	for _, c := range s {
		if c < 0x20 || c == '\\' {
			return nil, 0, false
		}
	}
	if !utf8.Valid(s) {
		return nil, 0, false
	}
	return s, p + q + 2, true
}

// key is the class of the line's members, appended to buf.
func (c *classes) key(buf []byte, members []member) []byte {
	for _, m := range members {
		r := c.props[m.name]
		if r == nil {
			continue // no keyword looks at it
		}
		buf = append(buf, m.name...)
		buf = append(buf, 0, m.kind)
		switch m.kind {
		case '"':
			if r.literals[string(m.raw)] {
				buf = append(buf, '=')
				buf = append(buf, m.raw...)
				break
			}
			for _, re := range r.patterns {
				buf = strconv.AppendBool(buf, re.Match(m.raw))
			}
			if len(r.lengths) > 0 {
				n := utf8.RuneCount(m.raw)
				for _, l := range r.lengths {
					buf = append(buf, "<=>"[compareInt(int64(n), big.NewInt(int64(l)))+1])
				}
			}
		case '0':
			n, _ := strconv.ParseInt(string(m.raw), 10, 64)
			for _, lit := range r.numbers {
				if compareInt(n, lit) == 0 {
					buf = append(buf, '=')
					buf = append(buf, m.raw...)
				}
			}
			for _, b := range r.bounds {
				buf = append(buf, "<=>"[compareInt(n, b)+1])
			}
		}
		buf = append(buf, 1)
	}
	return buf
}

// compareInt compares n with b: -1, 0 or +1.
func compareInt(n int64, b *big.Int) int {
	if b.IsInt64() {
		switch v := b.Int64(); {
		case n < v:
			return -1
		case n > v:
			return 1
		}
		return 0
	}
	return -b.Sign()
}

// known reports the verdict on the class of key, if it has one.
func (c *classes) known(key []byte) (valid, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	valid, ok = c.seen[string(key)]
	return valid, ok
}

func (c *classes) learn(key []byte, valid bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seen[string(key)] = valid
}
