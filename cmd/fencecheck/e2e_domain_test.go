package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
)

// TestRunFindsTokenRepresentationBugs: receivers over HTTP that compare
// tokens as decimal strings or as float64. Both faults are open from the
// start, and the runs are bounded by work or need few grants, so the
// outcome does not depend on the machine's speed:
//   - string-tokens is found by a default (dense) run within 5 s: its
//     one resource's tokens pass 9→10 after ten grants;
//   - float-tokens is found by --tokens sparse (2^53+1 is 2^53 to it, and
//     above 2^63 most consecutive tokens are one float);
//   - float-tokens is never VIOLATED by a dense run: its tokens stay far
//     below 2^53, where a float64 orders them as integers (that is why
//     sparse exists);
//   - the correct receiver is never VIOLATED by a sparse run.
func TestRunFindsTokenRepresentationBugs(t *testing.T) {
	t.Parallel()
	faults := []string{"--nemesis", "pause,delay", "--nemesis-script", "0s:+pause,0s:+delay", "--resources", "1"}
	cases := []struct {
		name, bug, tokens string
		bound             []string
		violated          bool
	}{
		{"string dense", "string-tokens", "", []string{"--duration", "5s"}, true},
		{"float sparse", "float-tokens", "sparse", []string{"--ops", "300"}, true},
		{"float dense", "float-tokens", "dense", []string{"--ops", "300"}, false},
		{"correct sparse", "none", "sparse", []string{"--ops", "300"}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := schema.TempDir(t)
			base := startReceiver(t, "--bug", tc.bug)
			args := append([]string{"run", "--target", base, "--store", "s", "--op-timeout", "2s"}, faults...)
			args = append(args, tc.bound...)
			if tc.tokens != "" {
				args = append(args, "--tokens", tc.tokens)
			}
			r := fencecheck(t, dir, args...)
			t.Logf("%s\n%s", r.stdout, r.stderr)
			if tc.violated {
				require.Equal(t, 1, r.code, r.stdout+r.stderr)
				assert.Contains(t, r.stdout, "wrong rejection")
			} else {
				require.Contains(t, []int{0, 2}, r.code, "never VIOLATED: %s%s", r.stdout, r.stderr)
				assert.NotContains(t, r.stdout, "VIOLATED")
			}
			want := tc.tokens
			if want == "" {
				want = "dense"
			}
			assert.Contains(t, reproduceOf(t, r.stdout), "--tokens "+want)
			var res struct {
				Config struct {
					Tokens   string `json:"tokens"`
					MaxToken uint64 `json:"max_token"`
				} `json:"config"`
			}
			latestResult(t, dir, &res)
			assert.Equal(t, want, res.Config.Tokens)
			assert.Equal(t, uint64(1<<64-1), res.Config.MaxToken)
		})
	}
}

// latestResult decodes the result.json of the store s's latest run in dir.
func latestResult(t *testing.T, dir string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "s", "latest", "result.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, v))
}

// TestVerifyPassesBuiltinAtomicSQLInItsDomain: verify passes the built-in
// atomic mode of every SQL engine that answers (SQLite always; PostgreSQL
// and MariaDB with FENCECHECK_POSTGRES_DSN and FENCECHECK_MYSQL_DSN),
// testing tokens up to 2^63-1 and printing that domain; 2^63 and 2^64-1
// are not sent.
func TestVerifyPassesBuiltinAtomicSQLInItsDomain(t *testing.T) {
	t.Parallel()
	for _, e := range sqlEngines {
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			dir := schema.TempDir(t)
			r := fencecheck(t, dir, "verify", "--target", e.spec(t, dir), "--sql-mode", "atomic", "--store", "s")
			t.Logf("%s\n%s", r.stdout, r.stderr)
			require.Equal(t, 0, r.code, r.stdout+r.stderr)
			assert.Contains(t, r.stdout, "token domain 1 … 2^63-1 (9223372036854775807): no larger token is sent")
			assert.Regexp(t, `\| digit-boundaries \| [^|]*2\^53→2\^53\+1, 2\^63-2→2\^63-1: higher accepted, lower again rejected \| all 7 pairs ordered as integers; not sent, above the receiver's largest token 2\^63-1: 2\^63-1→2\^63, 2\^64-2→2\^64-1 \| pass \|`, r.stdout)
			var rep struct {
				MaxToken uint64 `json:"max_token"`
				Passed   bool   `json:"passed"`
			}
			latestResult(t, dir, &rep)
			assert.Equal(t, uint64(1<<63-1), rep.MaxToken)
			assert.True(t, rep.Passed)
			history, err := os.ReadFile(filepath.Join(dir, "s", "latest", "history.jsonl"))
			require.NoError(t, err)
			assert.Contains(t, string(history), `"token":9223372036854775807,`)
			assert.NotContains(t, string(history), `"token":9223372036854775808,`, "2^63 is never sent")
		})
	}
}

// TestTokenFlags: --max-token narrows the domain verify tests and names
// itself when malformed; --tokens is checked before any run starts, and a
// real issuer's tokens are not renumbered.
func TestTokenFlags(t *testing.T) {
	t.Parallel()
	t.Run("declared domain", func(t *testing.T) {
		t.Parallel()
		r := fencecheck(t, schema.TempDir(t), "verify", "--target", "memory://fenced", "--max-token", "2^31-1", "--store", "s")
		require.Equal(t, 0, r.code, r.stdout+r.stderr)
		assert.Contains(t, r.stdout, "token domain 1 … 2^31-1 (2147483647)")
		assert.Contains(t, r.stdout, "999→1000, 2^31-2→2^31-1: higher accepted")
		assert.Contains(t, r.stdout, "--max-token '2^31-1'")
	})
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"bad max-token", []string{"verify", "--target", "memory://fenced", "--max-token", "2^64"}, `--max-token "2^64": out of range`},
		{"small domain", []string{"verify", "--target", "memory://fenced", "--max-token", "999"}, "battery's scripted tokens go up to 1000"},
		{"bad tokens", []string{"run", "--target", "memory://fenced", "--tokens", "sparse:3"}, `--tokens: "sparse:3": want dense, sparse or from:N`},
		{"from near the end", []string{"run", "--target", "memory://fenced", "--max-token", "2^63-1", "--tokens", "from:9223372036854775000"}, "tokens: from:9223372036854775000 leaves fewer than 1048576 tokens"},
		{"real issuer", []string{"run", "--target", "memory://fenced", "--leases", "etcd://127.0.0.1:1", "--tokens", "sparse"}, "tokens: sparse needs the run's own lease service"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := fencecheck(t, schema.TempDir(t), append(tc.args, "--store", "s")...)
			assert.Equal(t, 3, r.code, r.stdout+r.stderr)
			assert.Contains(t, r.stderr, tc.want)
		})
	}
}
