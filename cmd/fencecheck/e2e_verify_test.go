package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/internal/redact"
	"github.com/fencecheck/fencecheck/internal/testsupport/testdb"
	"github.com/fencecheck/fencecheck/verify"
)

func TestVerifyMemoryTargetsWithJUnit(t *testing.T) {
	t.Parallel()
	cases := []struct {
		target string
		code   int
		failed string // a scenario that must fail, "" for none
	}{
		{"memory://fenced", 0, ""},
		{"memory://unfenced", 1, "stale-after-newer"},
		{"memory://accept-equal", 1, "equal-token-repeat"},
		{"memory://check-then-set", 1, "check-then-set-race"},
	}
	for _, tc := range cases {
		t.Run(tc.target, func(t *testing.T) {
			t.Parallel()
			dir := schema.TempDir(t)
			r := fencecheck(t, dir, "verify", "--target", tc.target, "--store", "s", "--junit", "verify.xml")
			assert.Equal(t, tc.code, r.code, r.stdout+r.stderr)
			xml, err := os.ReadFile(filepath.Join(dir, "verify.xml"))
			require.NoError(t, err)
			assert.Equal(t, len(verify.Names()), strings.Count(string(xml), "<testcase "), "one case per scenario")
			if tc.failed == "" {
				assert.NotContains(t, string(xml), "<failure")
				return
			}
			assert.Contains(t, r.stdout, "| "+tc.failed+" |")
			assert.Contains(t, string(xml), `<testcase name="`+tc.failed+`"`)
			assert.Contains(t, string(xml), "<failure")
		})
	}
}

// TestVerifyWithLeases: with --leases the scenarios' tokens come from the
// issuer: the table says so, the correct receiver still passes and the
// unfenced one still fails the article's timeline, the reproduce line
// and result.json carry the issuer, and its grants are in the history.
func TestVerifyWithLeases(t *testing.T) {
	t.Parallel()
	cases := []struct {
		target, leases, name string
		code                 int
	}{
		{"memory://fenced", "etcd", "embedded etcd (3 members)", 0},
		{"memory://unfenced", "etcd", "embedded etcd (3 members)", 1},
	}
	if dsn, skip := testdb.Redis().DSN(); skip == "" {
		cases = append(cases, struct {
			target, leases, name string
			code                 int
		}{"memory://fenced", dsn, redact.Spec(dsn), 0})
	}
	for _, tc := range cases {
		t.Run(tc.target+"/"+tc.leases, func(t *testing.T) {
			t.Parallel()
			dir := schema.TempDir(t)
			r := fencecheck(t, dir, "verify", "--target", tc.target, "--leases", tc.leases, "--store", "s")
			require.Equal(t, tc.code, r.code, r.stdout+r.stderr)
			assert.Contains(t, r.stdout, "(strict policy, tokens from "+tc.name+")")
			assert.Contains(t, r.stdout, "--leases "+redact.Spec(tc.leases))
			if tc.code == 1 {
				assert.Regexp(t, `\| stale-after-newer \| \d+ accepted, \d+ rejected, read "new-result"@\d+ \| .* \| FAIL \|`, r.stdout)
			}
			result, err := os.ReadFile(filepath.Join(dir, "s", "latest", "result.json"))
			require.NoError(t, err)
			assert.Contains(t, string(result), `"leases": "`+tc.name+`"`)
			history, err := os.ReadFile(filepath.Join(dir, "s", "latest", "history.jsonl"))
			require.NoError(t, err)
			assert.Contains(t, string(history), `"actor":"lease","f":"acquire"`)
			// The first scenario's tokens are the issuer's, not the
			// scripted 41 and 42 (later scenarios' grants may reach 41).
			for _, line := range strings.Split(string(history), "\n") {
				if strings.Contains(line, "-stale-after-newer-") {
					assert.NotContains(t, line, `"token":41,`, "no scripted token in stale-after-newer")
				}
			}
		})
	}
}
