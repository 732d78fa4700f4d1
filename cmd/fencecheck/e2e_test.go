package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/internal/testsupport/gotool"
	"github.com/fencecheck/fencecheck/internal/testsupport/minio"
)

// fencecheckBinary is the fencecheck binary built once for the end-to-end
// tests, which run it as a user would and look only at its output, files
// and exit code.
var fencecheckBinary string

func TestMain(m *testing.M) {
	flag.Parse()
	if flagGiven("test.fuzzworker") {
		// A fuzz worker only runs inputs of a fuzz target, which need
		// no binary; building one in each worker, on the fuzzing
		// clock, took most of FuzzParseReady's time.
		os.Exit(m.Run())
	}
	if !flagGiven("test.parallel") {
		// Most of these tests wait: on a child process, a receiver, a
		// real-time run's leases. Running as many at once as there are
		// CPUs (go test's default) leaves the CPUs idle.
		_ = flag.Set("test.parallel", strconv.Itoa(4*runtime.GOMAXPROCS(0)))
	}
	dir, err := os.MkdirTemp("", "fencecheck-e2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	fencecheckBinary = filepath.Join(dir, "fencecheck")
	// The binary has the race detector exactly when the tests have it:
	// go test -race tests a race-enabled fencecheck, a plain go test is
	// not slowed down by one. Built with the tests' own flags, it reuses
	// what their build compiled.
	env, err := gotool.Env()
	if err != nil {
		fmt.Fprintln(os.Stderr, "build fencecheck:", err)
		os.Exit(3)
	}
	build := exec.Command("go", "build", "-o", fencecheckBinary, ".")
	build.Env, build.Stderr = env, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build fencecheck:", err)
		os.Exit(3)
	}
	code := m.Run()
	minio.Stop() // the MinIO server the S3 tests started, if any
	os.RemoveAll(dir)
	os.Exit(code)
}

// flagGiven reports whether the command line set the flag.
func flagGiven(name string) bool {
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

type result struct {
	stdout, stderr string
	code           int
}

func fencecheck(t *testing.T, dir string, args ...string) result {
	t.Helper()
	cmd := exec.Command(fencecheckBinary, args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	r := result{out.String(), errb.String(), code}
	validateJSON(t, args, r)
	return r
}

// resultCommands print a result (docs/schema/result.schema.json) with
// --json.
var resultCommands = map[string]bool{"run": true, "check": true, "verify": true, "verify-issuer": true}

// validateJSON validates what a command that prints a result printed
// with --json, as the files its runs write are (schema.TempDir): a user
// saves it as result.json (docs/gating.md).
func validateJSON(t *testing.T, args []string, r result) {
	t.Helper()
	if len(args) == 0 || !resultCommands[args[0]] || !slices.Contains(args, "--json") || r.code == exitError {
		return
	}
	assert.NoError(t, schema.ValidateResult(strings.NewReader(r.stdout), strings.Join(args[:1], " ")+" --json"))
}

func TestReplayPrintsTheSeedsFourLines(t *testing.T) {
	t.Parallel()
	dir := schema.TempDir(t)
	r := fencecheck(t, dir, "replay")
	require.Equal(t, 0, r.code, r.stderr)
	lines := strings.Split(r.stdout, "\n")
	require.GreaterOrEqual(t, len(lines), 5)
	assert.Equal(t, []string{
		"unfenced final value: old-result",
		"fenced final value: new-result",
		"repeated current token: accepted",
		"old token before newer token reaches resource: accepted",
		"",
	}, lines[:5])
	for _, f := range []string{"unfenced.jsonl", "fenced.jsonl", "repeated-token.jsonl", "old-token-first.jsonl", "comparison.csv", "comparison.json"} {
		assert.FileExists(t, filepath.Join(dir, "replay-out", f))
	}
}

func TestReplayIsByteIdenticalAcrossRuns(t *testing.T) {
	t.Parallel()
	a, b := schema.TempDir(t), schema.TempDir(t)
	ra, rb := fencecheck(t, a, "replay", "--out", "o"), fencecheck(t, b, "replay", "--out", "o")
	require.Equal(t, 0, ra.code)
	require.Equal(t, ra.stdout, rb.stdout)
	entries, err := os.ReadDir(filepath.Join(a, "o"))
	require.NoError(t, err)
	for _, e := range entries {
		x, _ := os.ReadFile(filepath.Join(a, "o", e.Name()))
		y, _ := os.ReadFile(filepath.Join(b, "o", e.Name()))
		assert.Equal(t, x, y, e.Name())
	}
}

func TestCheckJudgesTheReplayTraces(t *testing.T) {
	t.Parallel()
	dir := schema.TempDir(t)
	require.Equal(t, 0, fencecheck(t, dir, "replay").code)
	// The old token accepted first is the article's last replay line:
	// fencing allows it, and its trace holds no stale write, so it is no
	// pass unless the stale-write gate is opted out of, and then it says
	// it tested none.
	cases := []struct {
		trace, policy, minStale string
		code                    int
		contains                string
	}{
		{"unfenced", "strict", "1", 1, "reject token 41: token 42 was already accepted"},
		{"fenced", "strict", "1", 0, "verdict        HELD: "},
		{"repeated-token", "strict", "1", 1, "token 42 was accepted twice"},
		{"repeated-token", "accept-equal", "1", 0, "verdict        HELD: "},
		{"old-token-first", "strict", "1", 2, "verdict        INCONCLUSIVE: 0 stale writes were submitted, and a pass needs at least 1"},
		{"old-token-first", "strict", "0", 0, "verdict        HELD (no stale write tested): "},
	}
	for _, tc := range cases {
		t.Run(tc.trace+"/"+tc.policy+"/min-stale-"+tc.minStale, func(t *testing.T) {
			r := fencecheck(t, dir, "check", "replay-out/"+tc.trace+".jsonl", "--policy", tc.policy, "--min-stale", tc.minStale)
			assert.Equal(t, tc.code, r.code, r.stdout+r.stderr)
			assert.Contains(t, r.stdout, tc.contains)
		})
	}
}

func TestCheckExitCodes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir() // not validated: malformed histories on purpose
	write := func(name string, lines ...string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
		return p
	}
	newer := []string{
		`{"index":0,"time":3000,"process":1,"type":"invoke","f":"write","resource":"report","token":42,"value":"new-result"}`,
		`{"index":1,"time":3100,"process":1,"type":"ok","f":"write","resource":"report","token":42,"value":"new-result","outcome":"accepted"}`,
	}
	stale := write("stale.jsonl", append(newer,
		`{"index":2,"time":4000,"process":0,"type":"invoke","f":"write","resource":"report","token":41,"value":"old-result"}`,
		`{"index":3,"time":4100,"process":0,"type":"ok","f":"write","resource":"report","token":41,"value":"old-result","outcome":"accepted"}`)...)
	good := write("good.jsonl", append(slices.Clone(newer),
		`{"index":2,"time":4000,"process":0,"type":"invoke","f":"write","resource":"report","token":41,"value":"old-result"}`,
		`{"index":3,"time":4100,"process":0,"type":"ok","f":"write","resource":"report","token":41,"value":"old-result","outcome":"rejected"}`,
		`{"index":4,"time":5000,"process":2,"type":"invoke","f":"read","resource":"report"}`,
		`{"index":5,"time":5100,"process":2,"type":"ok","f":"read","resource":"report","token":42,"value":"new-result"}`)...)
	unread := write("unread.jsonl", append(slices.Clone(newer),
		`{"index":2,"time":4000,"process":0,"type":"invoke","f":"write","resource":"report","token":41,"value":"old-result"}`,
		`{"index":3,"time":4100,"process":0,"type":"ok","f":"write","resource":"report","token":41,"value":"old-result","outcome":"rejected"}`)...)
	unanswered := write("unanswered.jsonl",
		`{"index":0,"time":3000,"process":1,"type":"invoke","f":"write","resource":"report","token":42,"value":"new-result"}`,
		`{"index":1,"time":3100,"process":1,"type":"info","f":"write","resource":"report","token":42,"value":"new-result","error":"write token 42 to report: status 503 Service Unavailable: overloaded"}`,
		`{"index":2,"time":5000,"process":2,"type":"invoke","f":"read","resource":"report"}`,
		`{"index":3,"time":5100,"process":2,"type":"ok","f":"read","resource":"report","token":0,"value":null}`)
	empty := write("empty.jsonl")
	blank := write("blank.jsonl", "", "   ", "	")
	binary := filepath.Join(dir, "binary.jsonl")
	require.NoError(t, os.WriteFile(binary, []byte("\x7fELF\x02\x01\x01\x00garbage"), 0o644))
	badTail := filepath.Join(dir, "bad-tail.jsonl")
	require.NoError(t, os.WriteFile(badTail, []byte(strings.Join(append(slices.Clone(newer),
		`{"index":2,"time":4000,"process":0,"type":"invoke","f":"write","resource":"report","token":41,"value":"old-result"}`,
		`{"index":3,"time":4100,"process":0,"type":"ok","f":"write","resource":"report","token":41,"value":"old-result","outcome":"acepted"}`), "\n")), 0o644))
	future := write("future.jsonl", `{"index":0,"time":0,"actor":"harness","f":"header","format":2}`)
	malformed := write("history.jsonl", newer[0],
		`{"index":1,"time":3100,"process":1,"type":"ok","f":"write","resource":"report","token":"x","outcome":"accepted"}`)

	cases := []struct {
		name     string
		args     []string
		code     int
		stdout   string
		stderr   string
		htmlFile string
	}{
		{name: "correct history holds", args: []string{"check", good}, code: 0, stdout: "HELD"},
		{name: "no read after the writes: inconclusive", args: []string{"check", unread}, code: 2, stdout: "INCONCLUSIVE: too little evidence for a verdict: 1 of 1 resources have no evidence: report: no read returned"},
		{name: "every write unanswered: inconclusive, quoting the error", args: []string{"check", unanswered}, code: 2, stdout: "1× write: write token 42 to report: status 503 Service Unavailable: overloaded"},
		{name: "empty history: inconclusive", args: []string{"check", empty}, code: 2, stdout: "INCONCLUSIVE: too little evidence for a verdict: the history has no client operations"},
		{name: "/dev/null: inconclusive", args: []string{"check", "/dev/null"}, code: 2, stdout: "the history has no client operations"},
		{name: "blank lines: inconclusive", args: []string{"check", blank}, code: 2, stdout: "the history has no client operations"},
		{name: "binary without a newline is malformed", args: []string{"check", binary}, code: 3, stderr: "binary.jsonl:1: not a JSON object"},
		{name: "a complete bad last line without a newline is malformed", args: []string{"check", badTail}, code: 3, stderr: `bad-tail.jsonl:4: field "outcome"`},
		{name: "stale write accepted is a violation", args: []string{"check", stale}, code: 1, stdout: "stale write accepted"},
		{name: "checker gives up: inconclusive", args: []string{"check", stale, "--checker", "porcupine", "--timeout", "1ns"}, code: 2, stdout: "INCONCLUSIVE"},
		{name: "malformed input names file, line and field", args: []string{"check", malformed}, code: 3, stderr: `history.jsonl:2: field "token": not an unsigned integer`},
		{name: "a format newer than fencecheck reads", args: []string{"check", future}, code: 3,
			stderr: `future.jsonl:1: field "format": 2 is newer than this fencecheck reads (up to 1): read the file with a newer fencecheck`},
		{name: "missing file", args: []string{"check", filepath.Join(dir, "nope.jsonl")}, code: 3, stderr: "open history"},
		{name: "bad flag names the flag", args: []string{"check", good, "--polcy", "strict"}, code: 3, stderr: "--polcy"},
		{name: "bad policy names the flag", args: []string{"check", good, "--policy", "lenient"}, code: 3, stderr: "--policy"},
		{name: "no history", args: []string{"check"}, code: 3, stderr: "want one HISTORY file"},
		{name: "unknown command", args: []string{"chek"}, code: 3, stderr: "unknown command"},
		{name: "visualization of a violation", args: []string{"check", stale, "--html", filepath.Join(dir, "v.html")}, code: 1, htmlFile: filepath.Join(dir, "v.html")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := fencecheck(t, dir, tc.args...)
			assert.Equal(t, tc.code, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			assert.Contains(t, r.stdout, tc.stdout)
			assert.Contains(t, r.stderr, tc.stderr)
			if tc.htmlFile != "" {
				html, err := os.ReadFile(tc.htmlFile)
				require.NoError(t, err)
				assert.Contains(t, string(html), "<html")
				assert.Contains(t, string(html), "old-result")
			}
		})
	}
}

func TestCheckJSON(t *testing.T) {
	t.Parallel()
	dir := schema.TempDir(t)
	require.Equal(t, 0, fencecheck(t, dir, "replay").code)
	r := fencecheck(t, dir, "check", "--json", "replay-out/unfenced.jsonl")
	require.Equal(t, 1, r.code)
	var got struct {
		Counts struct{ Accepted int } `json:"counts"`
		Check  struct {
			Verdict    string `json:"verdict"`
			Violations []struct {
				Resource string `json:"resource"`
				Steps    []struct{ Expected string }
			} `json:"violations"`
		} `json:"check"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &got))
	assert.Equal(t, "violated", got.Check.Verdict)
	assert.Equal(t, 2, got.Counts.Accepted)
	require.Len(t, got.Check.Violations, 1)
	assert.Equal(t, "report", got.Check.Violations[0].Resource)
	assert.Len(t, got.Check.Violations[0].Steps, 2)
}
