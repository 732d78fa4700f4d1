package schema_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/audit"
	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/explore"
	"github.com/fencecheck/fencecheck/harness"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/runstore"
	"github.com/fencecheck/fencecheck/verify"
)

// writeLine is a write invocation with the token given as JSON text.
func writeLine(token string) string {
	return `{"index":1,"time":10,"process":0,"type":"invoke","f":"write","resource":"r","token":` + token + `,"value":"v"}`
}

// TestTokenIsAnUnsignedSixtyFourBitInteger: the schema's token is exactly
// the decoder's, 0 to 2^64-1, which a validator that read numbers as
// float64 could not tell from 2^64.
func TestTokenIsAnUnsignedSixtyFourBitInteger(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		token string
		ok    bool
	}{
		{"0", true},
		{"18446744073709551615", true},
		{"18446744073709551616", false},
		{"-1", false},
		{`"41"`, false},
		{"41.5", false},
	} {
		err := schema.ValidateHistory(strings.NewReader(writeLine(tc.token)+"\n"), "h.jsonl")
		if tc.ok {
			assert.NoError(t, err, tc.token)
		} else {
			assert.Error(t, err, tc.token)
		}
	}
}

// TestManualExamplesValidate: every history shown in
// docs/history-format.md is valid by the schema.
func TestManualExamplesValidate(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../history-format.md")
	require.NoError(t, err)
	blocks := regexp.MustCompile("(?s)```\n(\\{\"index\".*?)```").FindAllStringSubmatch(string(doc), -1)
	require.NotEmpty(t, blocks)
	for i, b := range blocks {
		assert.NoError(t, schema.ValidateHistory(strings.NewReader(b[1]), fmt.Sprintf("example %d", i+1)))
	}
}

func TestValidateHistory(t *testing.T) {
	t.Parallel()
	header := `{"index":0,"time":0,"actor":"harness","f":"header","format":1}`
	read := `{"index":1,"time":5,"process":0,"type":"invoke","f":"read","resource":"r"}`
	for _, tc := range []struct {
		name, content, err string
	}{
		{"a header, then an event", header + "\n" + read + "\n", ""},
		{"no header: format 0", read + "\n", ""},
		{"blank lines", "\n" + header + "\n\n" + read + "\n", ""},
		{"a last line cut short", header + "\n" + read + "\n" + `{"index":2,"ti`, ""},
		{"a header after an event", read + "\n" + header + "\n", "h.jsonl:2: a header is only ever the first line of a history"},
		{"a newer format", strings.Replace(header, `"format":1`, `"format":2`, 1) + "\n", "h.jsonl:1: "},
		{"a bad line names its line", header + "\n" + strings.Replace(read, `"read"`, `"delete"`, 1) + "\n", "h.jsonl:2: "},
		{"a complete last line is validated", header + "\n" + `{"index":1}`, "h.jsonl:2: "},
		{"bytes that begin no JSON", header + "\n" + "}{" + "\n", "h.jsonl:2: not JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := schema.ValidateHistory(strings.NewReader(tc.content), "h.jsonl")
			if tc.err == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.True(t, strings.HasPrefix(err.Error(), tc.err), err.Error())
		})
	}
}

// TestValidateDir: histories and results anywhere under the directory
// are validated, other files left alone, and an error names the file and
// the line.
func TestValidateDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir() // not validated: holds a bad history on purpose
	put := func(rel, content string) {
		path := filepath.Join(dir, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	}
	put("run/a/history.jsonl", `{"index":0,"time":0,"actor":"harness","f":"header","format":1}`+"\n")
	put("run/a/result.json", `{"format":2,"target":"memory://fenced","max_token":0,"require_exclusive":false,"passed":true,"dir":"run/a","scenarios":[]}`)
	put("run/a/summary.txt", "not json")
	put("run/a/comparison.json", "[]")
	n, err := schema.ValidateDir(dir)
	require.NoError(t, err)
	assert.Equal(t, 2, n)

	put("run/b/minimal.jsonl", writeLine("-1")+"\n")
	n, err = schema.ValidateDir(dir)
	assert.Equal(t, 3, n)
	require.Error(t, err)
	assert.Contains(t, err.Error(), filepath.Join(dir, "run/b/minimal.jsonl")+":1: ")
}

func TestValidateResultNeedsAFormat(t *testing.T) {
	t.Parallel()
	battery := `{"target":"t","max_token":0,"require_exclusive":false,"passed":true,"dir":"d","scenarios":null%s}`
	assert.NoError(t, schema.ValidateResult(strings.NewReader(fmt.Sprintf(battery, `,"format":2`)), "result.json"))
	assert.Error(t, schema.ValidateResult(strings.NewReader(fmt.Sprintf(battery, ``)), "result.json"), "no format")
	assert.Error(t, schema.ValidateResult(strings.NewReader(fmt.Sprintf(battery, `,"format":3`)), "result.json"), "a newer format")
}

// TestResultSchemaDocumentsTheGoTypes: the result schema describes
// exactly what encoding/json writes of a judgement, and of a run's, a
// battery's and a sweep's result (cmd/fencecheck checks check --json's).
func TestResultSchemaDocumentsTheGoTypes(t *testing.T) {
	t.Parallel()
	assert.NoError(t, schema.CheckGoType(schema.ResultFile, "/$defs/judgement", reflect.TypeFor[judge.Report]()))
	assert.NoError(t, schema.CheckGoType(schema.ResultFile, "/$defs/run", reflect.TypeFor[harness.Result]()))
	assert.NoError(t, schema.CheckGoType(schema.ResultFile, "/$defs/battery", reflect.TypeFor[verify.Report]()))
	assert.NoError(t, schema.CheckGoType(schema.ResultFile, "/$defs/sweep", reflect.TypeFor[explore.Result]()))
	assert.NoError(t, schema.CheckGoType(schema.ResultFile, "/$defs/sweepEntry", reflect.TypeFor[explore.Entry]()))
	assert.Equal(t, runstore.SweepLog, schema.SweepLogName)
	assert.NoError(t, schema.CheckGoType(schema.AuditFile, "", reflect.TypeFor[audit.Report]()))
}

// TestSchemasNameTheFormatsTheWritersWrite: the format versions the
// schemas describe are the ones fencecheck writes.
func TestSchemasNameTheFormatsTheWritersWrite(t *testing.T) {
	t.Parallel()
	field := func(file string) map[string]any {
		doc, err := schema.Document(file)
		require.NoError(t, err)
		return doc.(map[string]any)["properties"].(map[string]any)["format"].(map[string]any)
	}
	assert.Equal(t, json.Number(fmt.Sprint(runstore.ResultFormat)), field(schema.ResultFile)["const"])
	assert.Equal(t, json.Number(fmt.Sprint(audit.Format)), field(schema.AuditFile)["const"])
	line := field(schema.HistoryLineFile)
	assert.Equal(t, json.Number(fmt.Sprint(histories.Header().Format)), line["maximum"], "the newest history format")
	assert.Equal(t, json.Number("1"), line["minimum"], "headers begin at format 1")
	header := histories.Header()
	assert.NoError(t, schema.ValidateHistory(strings.NewReader(string(histories.AppendJSON(nil, &header))), "header"))
}

// TestCheckGoTypeFindsDrift: the comparison fails on each way a schema
// and a Go type can part, here on a resource without evidence.
func TestCheckGoTypeFindsDrift(t *testing.T) {
	t.Parallel()
	const thin = "/$defs/evidence/properties/thin/items"
	require.NoError(t, schema.CheckGoType(schema.ResultFile, thin, reflect.TypeFor[histories.ThinResource]()))
	for _, tc := range []struct {
		name string
		typ  reflect.Type
		want string
	}{
		{"a field added", reflect.TypeFor[struct {
			histories.ThinResource
			New int `json:"new"`
		}](), ".new: Go writes the field"},
		{"a field gone", reflect.TypeFor[struct {
			Resource string `json:"resource"`
		}](), ".why: documented, but"},
		{"omitempty added", reflect.TypeFor[struct {
			Resource string `json:"resource"`
			Why      string `json:"why,omitempty"`
		}](), ".why: the schema requires the field"},
		{"another type", reflect.TypeFor[struct {
			Resource []string `json:"resource"`
			Why      string   `json:"why"`
		}](), ".resource: Go may write null"},
		{"a number for a string", reflect.TypeFor[struct {
			Resource string `json:"resource"`
			Why      int    `json:"why"`
		}](), ".why: Go writes JSON type integer"},
	} {
		err := schema.CheckGoType(schema.ResultFile, thin, tc.typ)
		require.Error(t, err, tc.name)
		assert.Contains(t, err.Error(), tc.want, tc.name)
	}
}

// TestTempDirCallsFindsPlainTempDirs: the guard every package's tests run
// finds this package's own plain t.TempDir() calls, except the one that
// says why it is not validated.
func TestTempDirCallsFindsPlainTempDirs(t *testing.T) {
	t.Parallel()
	calls, err := schema.TempDirCalls(".")
	require.NoError(t, err)
	assert.Equal(t, []string{fmt.Sprintf("schema_test.go:%d", lineOf(t, "_ = t.TempDir()"))}, calls)
	_ = t.TempDir() // the call the guard must find
}

// lineOf is the line of this file that holds text.
func lineOf(t *testing.T, text string) int {
	src, err := os.ReadFile("schema_test.go")
	require.NoError(t, err)
	for i, l := range strings.Split(string(src), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), text) {
			return i + 1
		}
	}
	t.Fatalf("no line holds %q", text)
	return 0
}

// writesRuns matches test code that writes histories or results into a
// directory: a run, a report written, a store given to the binary, or a
// directory already validated (where a recorder on a file and a history
// written by hand go).
var writesRuns = regexp.MustCompile(`harness\.Run\(|fencetest\.Run\(|StoreDir|report\.Write\(|\.WriteFiles\(|runstore\.Create\(|"--store"|schema\.TempDir\(`)

// TestEveryTempDirOfARunIsValidated: in every package whose tests write
// histories or results, each temporary directory goes through
// schema.TempDir, which validates what the tests wrote into it, or says
// why not (schema.Exempt). A package that starts writing runs, and a test
// that writes them into a plain t.TempDir(), fail here until they do.
func TestEveryTempDirOfARunIsValidated(t *testing.T) {
	t.Parallel()
	writers := map[string]bool{}
	require.NoError(t, filepath.WalkDir("../..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") && path != "../.." {
			return filepath.SkipDir
		}
		// This package's own tests make a plain t.TempDir() for the
		// guard to find (TestTempDirCallsFindsPlainTempDirs).
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") || filepath.Dir(path) == filepath.Join("../..", "docs/schema") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if writesRuns.Match(src) {
			writers[filepath.Dir(path)] = true
		}
		return nil
	}))
	for _, pkg := range []string{"harness", "fencetest", "cmd/fencecheck", "replay", "report", "runstore", "histories", "browse"} {
		assert.True(t, writers[filepath.Join("../..", pkg)], "%s: the walk finds its tests", pkg)
	}
	for dir := range writers {
		calls, err := schema.TempDirCalls(dir)
		require.NoError(t, err)
		for _, c := range calls {
			t.Errorf("%s/%s: a t.TempDir() whose files are not validated: use schema.TempDir(t), or say why not in a %q comment on its line or the line above",
				strings.TrimPrefix(dir, "../../"), c, schema.Exempt)
		}
	}
}
