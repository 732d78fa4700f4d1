package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
)

// TestHostileNamesAreEscaped checks a violating history whose resource
// name, values, fault, details and error text carry terminal escape
// sequences (a window-title OSC ended by BEL, a screen-clearing CSI, C1
// CSI, DEL) and bidi overrides and isolates: check's output, the
// explanation and the minimal counterexample included, shows each of
// them as an escape, and not one reaches the terminal raw.
func TestHostileNamesAreEscaped(t *testing.T) {
	t.Parallel()
	const (
		resource = "re\u001b]0;pwned\u0007port\u001b[2J\u202e\u2066"
		newer    = "new\u001b[31m-result\u009b\u007f"
		older    = "old\u001b]0;x\u0007\u202a"
	)
	events := []map[string]any{
		{"actor": "lease", "f": "acquire", "resource": resource, "token": 41, "holder": 0, "detail": "A \u001b[2J gets 41"},
		{"actor": "nemesis", "f": "start", "fault": "pa\u001b[2Juse", "detail": "x\u001b]0;t\u0007"},
		{"process": 1, "type": "invoke", "f": "write", "resource": resource, "token": 42, "value": newer},
		{"process": 1, "type": "ok", "f": "write", "resource": resource, "token": 42, "value": newer, "outcome": "accepted"},
		{"process": 0, "type": "invoke", "f": "write", "resource": resource, "token": 41, "value": older},
		{"process": 0, "type": "ok", "f": "write", "resource": resource, "token": 41, "value": older, "outcome": "accepted"},
		{"process": 2, "type": "invoke", "f": "read", "resource": resource},
		{"process": 2, "type": "ok", "f": "read", "resource": resource, "token": 41, "value": older},
		{"process": 3, "type": "invoke", "f": "write", "resource": resource, "token": 43, "value": "v"},
		{"process": 3, "type": "info", "f": "write", "resource": resource, "token": 43, "value": "v", "error": "boom \u001b]0;err\u0007\u2067"},
	}
	dir := schema.TempDir(t)
	var lines []string
	for i, e := range events {
		e["index"], e["time"] = i, 1000*(i+1)
		line, err := json.Marshal(e)
		require.NoError(t, err)
		lines = append(lines, string(line))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "h.jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o644))

	for _, args := range [][]string{{"check", "h.jsonl"}, {"check", "--checker", "both", "h.jsonl"}, {"check", "--policy", "accept-equal", "h.jsonl"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			r := fencecheck(t, dir, args...)
			assert.Equal(t, 1, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			assert.Contains(t, r.stdout, `first on re\x1b]0;pwned\x07port\x1b[2J\u202e\u2066 at `, "the verdict names it, escaped")
			assert.Contains(t, r.stdout, `minimal counterexample: 2 of 4 operations on re\x1b]0;pwned\x07port\x1b[2J\u202e\u2066 (`)
			assert.Contains(t, r.stdout, `boom \x1b]0;err\x07\u2067`, "the target's error")
			for name, out := range map[string]string{"stdout": r.stdout, "stderr": r.stderr} {
				if i, bad := terminalUnsafe(out); bad {
					t.Errorf("%s has a raw %q at byte %d:\n%s", name, out[i:min(i+4, len(out))], i, out)
				}
			}
		})
	}
}

// terminalUnsafe returns where out has a byte a terminal would act on
// rather than show: invalid UTF-8, or a character other than a newline
// that unicode.IsPrint refuses.
func terminalUnsafe(out string) (int, bool) {
	for i, r := range out {
		if r == utf8.RuneError && !strings.HasPrefix(out[i:], string(utf8.RuneError)) || r != '\n' && !unicode.IsPrint(r) {
			return i, true
		}
	}
	return 0, false
}
