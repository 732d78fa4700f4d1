package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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

// TestVerifySurvivesAReceiverThatExits: a receiver that exits on a token
// above 2^63-1 (as one that keeps tokens in an int64 may) fails
// digit-boundaries, with the exit, its last lines and the --max-token to
// declare, and verify still prints its whole table and exits 1. One that
// verify started (--exec) is started again, and every later scenario
// plays against it; one it did not start leaves the later scenarios not
// run, each saying why.
func TestVerifySurvivesAReceiverThatExits(t *testing.T) {
	t.Parallel()
	recv := flakyReceiver(t)
	declare := `having answered tokens up to 2\^63-1 \(if that is its largest token, declare it: --max-token 9223372036854775807\)`
	cases := []struct {
		name  string
		exec  bool
		gone  string   // how the digit-boundaries row says it went away
		after []string // the rows after digit-boundaries
	}{
		{"started by verify", true, `the receiver exited \(exit status 1\) on token 2\^63, ` + declare + `; its output ends: "flakyreceiver: listening on `,
			[]string{`\| scope \| .* \| pass \|`, `\| acknowledged-writes \| .* \| pass \|`, `\| restart-durability \| .* \| 7 accepted; after restart read "before"@7, 6 rejected, 8 accepted \| pass \|`, `\| receiver-log \| .* \| pass \|`}},
		{"started by the user", false, `the receiver stopped answering \(connection refused\) on token 2\^63, ` + declare,
			[]string{`\| scope \|  \| not run: the receiver stopped answering during digit-boundaries \(connection refused\), and fencecheck did not start it, so it cannot start it again \| skip \|`,
				`\| acknowledged-writes \|  \| not run: .* \| skip \|`, `\| restart-durability \|  \| not run: .* \| skip \|`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir, addr := schema.TempDir(t), freeAddr(t)
			line := fmt.Sprintf("%s --int64-tokens --listen %s --store sqlite:%s", recv, addr, filepath.Join(dir, "recv.db"))
			args := []string{"verify", "--target", "http://" + addr, "--store", "s", "--junit", "verify.xml"}
			if tc.exec {
				args = append(args, "--exec", line)
			} else {
				user := exec.Command("/bin/sh", "-c", "exec "+line)
				require.NoError(t, user.Start())
				t.Cleanup(func() { _ = user.Process.Kill(); _ = user.Wait() })
				eventually(t, func() bool { return answers(addr) }, "the receiver listens")
			}
			r := fencecheck(t, dir, args...)
			t.Log(r.stdout)
			require.Equal(t, 1, r.code, r.stdout+r.stderr)
			assert.Regexp(t, `\| digit-boundaries \| [^|]* \| `+tc.gone+`.*\| FAIL \|`, r.stdout)
			for _, row := range tc.after {
				assert.Regexp(t, row, r.stdout)
			}
			assert.Regexp(t, `\d+ passed, 1 failed, 1 info, \d+ skipped: digit-boundaries failed`, r.stdout)

			result, err := os.ReadFile(filepath.Join(dir, "s", "latest", "result.json"))
			require.NoError(t, err)
			var rep verify.Report
			require.NoError(t, json.Unmarshal(result, &rep))
			require.Len(t, rep.Outcomes, len(verify.Names())+map[bool]int{true: 1, false: 0}[tc.exec], "every scenario is a row")
			digits := rep.Outcomes[slices.Index(verify.Names(), "digit-boundaries")]
			assert.Regexp(t, "^"+tc.gone, digits.Observed)
			xml, err := os.ReadFile(filepath.Join(dir, "verify.xml"))
			require.NoError(t, err)
			assert.Regexp(t, `<testcase name="digit-boundaries"[^>]*>\s*<failure`, string(xml))
			if !tc.exec {
				assert.True(t, rep.Outcomes[len(rep.Outcomes)-1].NotRun, "restart-durability was not run")
				assert.Contains(t, string(xml), `<skipped message="not run: the receiver stopped answering`)
				return
			}
			lastWords := `flakyreceiver: bad fencing token: strconv.ParseInt: parsing "9223372036854775808": value out of range`
			assert.Contains(t, digits.Observed, `"flakyreceiver: listening on http://`+addr+`" "`+lastWords+`"; `, "its last lines, quoted")
			assert.Contains(t, r.stdout, "the receiver's output when it went away during digit-boundaries ends:\n  flakyreceiver: listening on http://"+addr+"\n  "+lastWords+"\n")
			log, err := os.ReadFile(filepath.Join(dir, rep.Dir, "receiver.log"))
			require.NoError(t, err)
			assert.Equal(t, 3, strings.Count(string(log), "--- fencecheck: start"), "started, started again after its exit, restarted by restart-durability")
		})
	}
}

// TestVerifyMarksWhatFollowsFromScope: against a receiver that keeps one
// store for every resource, scope fails and every other failure is
// marked as one that may follow from it, in the table, result.json and
// JUnit, and the summary line names scope first; verify exits 1.
func TestVerifyMarksWhatFollowsFromScope(t *testing.T) {
	t.Parallel()
	dir := schema.TempDir(t)
	r := fencecheck(t, dir, "verify", "--target", "memory://one-store", "--store", "s", "--junit", "verify.xml")
	require.Equal(t, 1, r.code, r.stdout+r.stderr)
	assert.Regexp(t, `(?m)^\| scope \| .* \| FAIL \|$`, r.stdout, "the root cause is a plain failure")
	result, err := os.ReadFile(filepath.Join(dir, "s", "latest", "result.json"))
	require.NoError(t, err)
	var rep verify.Report
	require.NoError(t, json.Unmarshal(result, &rep))
	var followers []string
	for _, o := range rep.Outcomes {
		if o.Result == verify.Fail && o.Scenario != "scope" {
			assert.Equal(t, []string{"scope"}, o.FollowsFrom, o.Scenario)
			assert.Regexp(t, `(?m)^\| `+o.Scenario+` \| .* \| FAIL \(may follow from scope\) \|$`, r.stdout)
			followers = append(followers, o.Scenario)
		}
	}
	require.NotEmpty(t, followers)
	assert.Regexp(t, `\d+ passed, \d+ failed, \d+ info, \d+ skipped: scope failed, and `+strings.Join(followers[:len(followers)-1], ", ")+
		` and `+followers[len(followers)-1]+` may follow from it; wrote `, r.stdout)
	xml, err := os.ReadFile(filepath.Join(dir, "verify.xml"))
	require.NoError(t, err)
	assert.Equal(t, len(followers), strings.Count(string(xml), `(may follow from scope): expected`))
}
