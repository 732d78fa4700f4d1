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
	"sync/atomic"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The schema files, by name.
const (
	HistoryLineFile = "history-line.schema.json"
	ResultFile      = "result.schema.json"
)

//go:embed *.json
var files embed.FS

// compiled holds the schemas, compiled once.
var compiled = sync.OnceValues(func() (map[string]*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	ids := map[string]string{}
	for _, name := range []string{HistoryLineFile, ResultFile} {
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

func schemaOf(name string) (*jsonschema.Schema, error) {
	all, err := compiled()
	if err != nil {
		return nil, err
	}
	return all[name], nil
}

// validated counts the files this process validated, for the count the
// test binaries print (Validated).
var validated struct{ histories, results atomic.Int64 }

// Validated returns how many histories and results this process has
// validated.
func Validated() (histories, results int64) {
	return validated.histories.Load(), validated.results.Load()
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
	br := bufio.NewReaderSize(r, 64<<10)
	var errs []error
	first := true
	for line := 1; ; line++ {
		raw, err := br.ReadBytes('\n')
		if len(raw) > maxLine {
			return fmt.Errorf("%s:%d: line longer than %d bytes", name, line, maxLine)
		}
		if len(bytes.TrimSpace(raw)) > 0 {
			if lerr := validateLine(s, raw, first, err != nil); lerr != nil {
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
	validated.histories.Add(1)
	return errors.Join(errs...)
}

// validateLine validates one line; last says it is the file's last, and
// has no newline.
func validateLine(s *jsonschema.Schema, raw []byte, first, last bool) error {
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
		return errors.New("a header is only ever the first line of a history")
	}
	return nil
}

// ValidateResult validates a result.json (or what --json prints) read
// from r against the result schema; name is for the error.
func ValidateResult(r io.Reader, name string) error {
	s, err := schemaOf(ResultFile)
	if err != nil {
		return err
	}
	v, err := jsonschema.UnmarshalJSON(r)
	if err != nil {
		return fmt.Errorf("%s: not JSON: %w", name, err)
	}
	validated.results.Add(1)
	if err := s.Validate(v); err != nil {
		return fmt.Errorf("%s: %w", name, flatten(err))
	}
	return nil
}

// flatten puts a validation error, which the library words over several
// lines, on one.
func flatten(err error) error {
	return errors.New(strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n", "; ")), " "))
}

// ValidateDir validates every history (a *.jsonl file) and every
// result.json under dir, and returns how many files it validated. A
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
		case strings.HasSuffix(d.Name(), ".jsonl"):
			validate = ValidateHistory
		case d.Name() == "result.json":
			validate = ValidateResult
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
