// Package schema holds the JSON Schemas of the files fencecheck writes,
// history-line.schema.json (one line of a history) and result.schema.json
// (result.json, and what --json prints), and validates files against
// them. The schemas are documentation first: they sit beside the manual,
// and a user's tool can validate fencecheck's files with any JSON Schema
// library. This package embeds the same files, so the tests that validate
// what the test suite writes (TempDir) check the published schemas, not a
// copy.
//
// It is not imported by fencecheck itself: the reader in package
// histories is the authority on what a history may hold, and it checks
// more than a schema can say (see the schema's description); tests keep
// the two from drifting apart.
package schema

import (
	"bufio"
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The schema files, by name.
const (
	HistoryLineFile = "history-line.schema.json"
	ResultFile      = "result.schema.json"
	AuditFile       = "audit.schema.json"
)

//go:embed *.json
var files embed.FS

// compiled holds the schemas, compiled once.
var compiled = sync.OnceValues(func() (map[string]*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	ids := map[string]string{}
	for _, name := range []string{HistoryLineFile, ResultFile, AuditFile} {
		doc, err := Document(name)
		if err != nil {
			return nil, err
		}
		id, _ := doc.(map[string]any)["$id"].(string)
		if id == "" {
			return nil, fmt.Errorf("%s: no $id", name)
		}
		if err := c.AddResource(id, doc); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		ids[name] = id
	}
	out := map[string]*jsonschema.Schema{}
	for name, id := range ids {
		s, err := c.Compile(id)
		if err != nil {
			return nil, fmt.Errorf("compile %s: %w", name, err)
		}
		out[name] = s
	}
	entry, err := c.Compile(ids[ResultFile] + "#/$defs/sweepEntry")
	if err != nil {
		return nil, fmt.Errorf("compile %s#/$defs/sweepEntry: %w", ResultFile, err)
	}
	out[sweepEntry] = entry
	return out, nil
})

// Document returns the schema file name, decoded as the validator reads
// JSON: numbers as json.Number, so that no integer loses precision.
func Document(name string) (any, error) {
	data, err := files.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", name, err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", name, err)
	}
	return doc, nil
}

// lineClasses are the classes of history lines (classes.go), nil when
// the schema uses a keyword they do not account for.
var lineClasses = sync.OnceValues(func() (*classes, error) {
	doc, err := Document(HistoryLineFile)
	if err != nil {
		return nil, err
	}
	return newClasses(doc)
})

func schemaOf(name string) (*jsonschema.Schema, error) {
	all, err := compiled()
	if err != nil {
		return nil, err
	}
	return all[name], nil
}

// maxLine bounds one history line, as the reader does (MaxLineBytes in
// package histories: 16 MiB).
const maxLine = 16 << 20

// ValidateHistory validates every line of the history r against the
// history line schema, and that a header (actor harness, f header) is
// only ever the first line, which the schema of one line cannot say.
// Blank lines are skipped, as the reader skips them, and so is a last
// line without a newline that ends in the middle of its JSON: what a
// writer killed mid-write leaves, which the reader drops too. Errors name
// name and the line.
func ValidateHistory(r io.Reader, name string) error {
	s, err := schemaOf(HistoryLineFile)
	if err != nil {
		return err
	}
	cls, _ := lineClasses() // without them, every line is validated in full
	v := lineValidator{schema: s, classes: cls, valid: map[string]bool{}}
	br := bufio.NewReaderSize(r, 64<<10)
	var errs []error
	first := true
	for line := 1; ; line++ {
		raw, err := br.ReadBytes('\n')
		if len(raw) > maxLine {
			return fmt.Errorf("%s:%d: line longer than %d bytes", name, line, maxLine)
		}
		if len(bytes.TrimSpace(raw)) > 0 {
			if lerr := v.validate(raw, first, err != nil); lerr != nil {
				errs = append(errs, fmt.Errorf("%s:%d: %w", name, line, lerr))
			}
			first = false
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", name, err)
		}
	}
	return errors.Join(errs...)
}

// lineValidator validates the lines of one history.
type lineValidator struct {
	schema  *jsonschema.Schema
	classes *classes
	valid   map[string]bool // classes this history met that are valid, without the lock of classes
	members []member
	key     []byte
}

// validate validates one line: first says it is the history's first,
// last that it is its last and has no newline. A line of a class known
// to be valid is valid; any other is validated in full.
func (v *lineValidator) validate(raw []byte, first, last bool) error {
	if v.classes != nil {
		members, err := scan(raw, v.members[:0])
		if err == nil {
			v.members = members
			if !first && isHeader(members) {
				return errHeaderNotFirst
			}
			v.key = v.classes.key(v.key[:0], members)
			if v.valid[string(v.key)] {
				return nil
			}
			if valid, ok := v.classes.known(v.key); ok && valid {
				v.valid[string(v.key)] = true
				return nil
			}
			err := validateFull(v.schema, raw, first, last)
			v.classes.learn(v.key, err == nil)
			return err
		}
	}
	return validateFull(v.schema, raw, first, last)
}

// isHeader reports whether the members are a header's.
func isHeader(members []member) bool {
	actor, f := false, false
	for _, m := range members {
		actor = actor || m.name == "actor" && m.kind == '"' && string(m.raw) == "harness"
		f = f || m.name == "f" && m.kind == '"' && string(m.raw) == "header"
	}
	return actor && f
}

var errHeaderNotFirst = errors.New("a header is only ever the first line of a history")

// validateFull decodes and validates one line.
func validateFull(s *jsonschema.Schema, raw []byte, first, last bool) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		if last && errors.Is(err, io.ErrUnexpectedEOF) {
			return nil // cut short by a killed writer
		}
		return fmt.Errorf("not JSON: %w", err)
	}
	if err := s.Validate(v); err != nil {
		return flatten(err)
	}
	if m, ok := v.(map[string]any); ok && m["actor"] == "harness" && m["f"] == "header" && !first {
		return errHeaderNotFirst
	}
	return nil
}

// SweepLogName is the name of a sweep's log (runstore.SweepLog, which
// this package, below the run store, cannot import).
const SweepLogName = "sweep.jsonl"

// sweepEntry names the schema of a sweep log's line: a definition in the
// result schema, since a sweep's result.json holds the same entries.
const sweepEntry = ResultFile + "#/$defs/sweepEntry"

// ValidateSweepLog validates a sweep's log (sweep.jsonl) read from r:
// every line against the result schema's sweepEntry; name is for the
// error, which gives the line.
func ValidateSweepLog(r io.Reader, name string) error {
	s, err := schemaOf(sweepEntry)
	if err != nil {
		return err
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), maxLine)
	for line := 1; sc.Scan(); line++ {
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(sc.Bytes()))
		if err != nil {
			return fmt.Errorf("%s:%d: not JSON: %w", name, line, err)
		}
		if err := s.Validate(v); err != nil {
			return fmt.Errorf("%s:%d: %w", name, line, flatten(err))
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// ValidateResult validates a result.json (or what --json prints) read
// from r against the result schema; name is for the error.
func ValidateResult(r io.Reader, name string) error { return validateDocument(ResultFile, r, name) }

// ValidateAudit validates an audit.json read from r against the audit
// schema; name is for the error.
func ValidateAudit(r io.Reader, name string) error { return validateDocument(AuditFile, r, name) }

// validateDocument validates one JSON document read from r against the
// schema in file; name is for the error.
func validateDocument(file string, r io.Reader, name string) error {
	s, err := schemaOf(file)
	if err != nil {
		return err
	}
	v, err := jsonschema.UnmarshalJSON(r)
	if err != nil {
		return fmt.Errorf("%s: not JSON: %w", name, err)
	}
	if err := s.Validate(v); err != nil {
		return fmt.Errorf("%s: %w", name, flatten(err))
	}
	return nil
}

// flatten puts a validation error, which the library words over several
// lines after a first that names the schema, on one.
func flatten(err error) error {
	lines := strings.Split(err.Error(), "\n")
	if len(lines) > 1 && strings.HasPrefix(lines[0], "jsonschema validation failed") {
		lines = lines[1:]
	}
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(strings.TrimSpace(l), "- ")
	}
	return errors.New(strings.Join(lines, "; "))
}

// ValidateDir validates every history (a *.jsonl file), every
// result.json and every audit.json under dir, and returns how many files it validated. A
// symbolic link is not followed: the store's latest points at a run
// directory that is validated where it is.
func ValidateDir(dir string) (int, error) {
	var errs []error
	n := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		var validate func(io.Reader, string) error
		switch {
		case d.Name() == SweepLogName:
			validate = ValidateSweepLog
		case strings.HasSuffix(d.Name(), ".jsonl"):
			validate = ValidateHistory
		case d.Name() == "result.json":
			validate = ValidateResult
		case d.Name() == "audit.json":
			validate = ValidateAudit
		default:
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		n++
		if err := validate(f, path); err != nil {
			errs = append(errs, err)
		}
		return nil
	})
	if err != nil {
		return n, fmt.Errorf("validate %s: %w", dir, err)
	}
	return n, errors.Join(errs...)
}
