package schema

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"
)

// CheckGoType compares the Go type t, as encoding/json writes it, with
// the definition at pointer (a JSON pointer such as "/$defs/run") in the
// schema file name, field by field and all the way down: every field Go
// writes is documented, every field documented is written, the fields Go
// always writes (no omitempty) are exactly the required ones, a field Go
// may write as null (a nil slice, map or pointer without omitempty) allows
// null, and each has the JSON type of its Go type. So a field added to a
// result in Go and not to the schema fails a test, instead of the schema
// drifting silently; the descriptions stay a person's job.
func CheckGoType(name, pointer string, t reflect.Type) error {
	doc, err := Document(name)
	if err != nil {
		return err
	}
	root, ok := doc.(map[string]any)
	if !ok {
		return fmt.Errorf("%s: not an object", name)
	}
	w := &goWalker{root: root}
	node, err := w.pointer(pointer)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	w.walk(name+"#"+pointer, node, t, false)
	return errors.Join(w.errs...)
}

type goWalker struct {
	root map[string]any
	errs []error
}

func (w *goWalker) fail(path, format string, args ...any) {
	w.errs = append(w.errs, fmt.Errorf("%s: %s", path, fmt.Sprintf(format, args...)))
}

// pointer resolves a JSON pointer within the schema file.
func (w *goWalker) pointer(p string) (map[string]any, error) {
	var node any = w.root
	for _, part := range strings.Split(strings.TrimPrefix(p, "/"), "/") {
		if part == "" {
			continue
		}
		m, ok := node.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: no object at %q", p, part)
		}
		if node, ok = m[strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")]; !ok {
			return nil, fmt.Errorf("%s: nothing at %q", p, part)
		}
	}
	m, ok := node.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: not a schema object", p)
	}
	return m, nil
}

// resolve follows local $refs.
func (w *goWalker) resolve(path string, node map[string]any) map[string]any {
	for range 16 {
		ref, ok := node["$ref"].(string)
		if !ok {
			return node
		}
		target, err := w.pointer(strings.TrimPrefix(ref, "#"))
		if err != nil || !strings.HasPrefix(ref, "#") {
			w.fail(path, "unresolvable $ref %q", ref)
			return map[string]any{}
		}
		node = target
	}
	w.fail(path, "$refs nested too deeply")
	return map[string]any{}
}

// jsonTypes are the JSON types the node allows: its type, or those of
// its enum or const values.
func jsonTypes(node map[string]any) []string {
	switch t := node["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, v := range t {
			s, _ := v.(string)
			out = append(out, s)
		}
		return out
	}
	values, _ := node["enum"].([]any)
	if c, ok := node["const"]; ok {
		values = append(values, c)
	}
	var out []string
	for _, v := range values {
		switch v.(type) {
		case string:
			out = append(out, "string")
		case nil:
			out = append(out, "null")
		case bool:
			out = append(out, "boolean")
		default:
			out = append(out, "number")
		}
	}
	return out
}

var timeType = reflect.TypeFor[time.Time]()

func (w *goWalker) walk(path string, node map[string]any, t reflect.Type, mayBeNull bool) {
	node = w.resolve(path, node)
	types := jsonTypes(node)
	if len(types) == 0 {
		w.fail(path, "no type")
		return
	}
	switch hasNull := slices.Contains(types, "null"); {
	case mayBeNull && !hasNull:
		w.fail(path, "Go may write null (a nil %s without omitempty), and the schema does not allow it", t.Kind())
	case !mayBeNull && hasNull:
		w.fail(path, "the schema allows null, which Go never writes here")
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	want := jsonTypeOf(t)
	if !slices.Contains(types, want) && !(want == "integer" && slices.Contains(types, "number")) {
		w.fail(path, "Go writes JSON type %s (%s), the schema says %v", want, t, types)
		return
	}
	switch {
	case t == timeType:
	case t.Kind() == reflect.Struct:
		w.object(path, node, t)
	case t.Kind() == reflect.Slice || t.Kind() == reflect.Array:
		items, ok := node["items"].(map[string]any)
		if !ok {
			w.fail(path, "an array without items")
			return
		}
		w.walk(path+"[]", items, t.Elem(), false)
	case t.Kind() == reflect.Map:
		values, ok := node["additionalProperties"].(map[string]any)
		if !ok {
			w.fail(path, "a map without additionalProperties")
			return
		}
		w.walk(path+"{}", values, t.Elem(), false)
	}
}

func jsonTypeOf(t reflect.Type) string {
	if t == timeType {
		return "string"
	}
	switch t.Kind() {
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.String:
		return "string"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Map, reflect.Struct:
		return "object"
	}
	return t.Kind().String()
}

// goField is a field as encoding/json writes it.
type goField struct {
	name      string
	typ       reflect.Type
	omitempty bool
}

// fieldsOf lists what encoding/json writes of struct t, the fields of
// embedded structs without a name inlined.
func fieldsOf(t reflect.Type) []goField {
	var out []goField
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		ft := f.Type
		if f.Anonymous && name == "" {
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				out = append(out, fieldsOf(ft)...)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, goField{name: name, typ: f.Type, omitempty: slices.Contains(strings.Split(opts, ","), "omitempty")})
	}
	return out
}

func (w *goWalker) object(path string, node map[string]any, t reflect.Type) {
	props, required := w.fields(path, node)
	written := map[string]bool{}
	for _, f := range fieldsOf(t) {
		written[f.name] = true
		at := path + "." + f.name
		prop, ok := props[f.name].(map[string]any)
		if !ok {
			w.fail(at, "Go writes the field (%s.%s), the schema does not document it", t, f.name)
			continue
		}
		if d, _ := prop["description"].(string); d == "" {
			if d, _ = w.resolve(at, prop)["description"].(string); d == "" {
				w.fail(at, "no description")
			}
		}
		switch req := slices.Contains(required, f.name); {
		case !f.omitempty && !req:
			w.fail(at, "Go always writes the field (no omitempty), the schema does not require it")
		case f.omitempty && req:
			w.fail(at, "the schema requires the field, which Go leaves out when empty (omitempty)")
		}
		k := f.typ.Kind()
		nilable := k == reflect.Slice || k == reflect.Map || k == reflect.Pointer || k == reflect.Interface
		w.walk(at, prop, f.typ, nilable && !f.omitempty)
	}
	for name := range props {
		if !written[name] {
			w.fail(path+"."+name, "documented, but %s has no such field", t)
		}
	}
}

// fields are the properties and the required names of an object schema,
// with those of the schemas it is allOf (the run's and check's results
// are the judgement and fields of their own).
func (w *goWalker) fields(path string, node map[string]any) (map[string]any, []string) {
	props := map[string]any{}
	var required []string
	parts := []map[string]any{node}
	all, _ := node["allOf"].([]any)
	for _, a := range all {
		if m, ok := a.(map[string]any); ok {
			parts = append(parts, w.resolve(path, m))
		}
	}
	for _, part := range parts {
		if p, ok := part["properties"].(map[string]any); ok {
			for k, v := range p {
				if _, dup := props[k]; dup {
					w.fail(path+"."+k, "documented twice (in an allOf part too)")
				}
				props[k] = v
			}
		}
		if r, ok := part["required"].([]any); ok {
			for _, v := range r {
				s, _ := v.(string)
				required = append(required, s)
			}
		}
	}
	return props, required
}
