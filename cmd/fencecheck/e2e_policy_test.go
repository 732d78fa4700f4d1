package main

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
)

// TestPoliciesNestEndToEnd: accept-equal allows a repeat of the current
// token to be accepted or rejected, so a strict receiver holds under it
// (as under strict), and a receiver that accepts repeats holds under it
// but not under strict. The runs carry unknown outcomes (duplicate, expire)
// and many repeats; each stored history is checked again by both checkers.
func TestPoliciesNestEndToEnd(t *testing.T) {
	t.Parallel()
	cases := []struct {
		target, policy string
		code           int
	}{
		{"memory://fenced", "strict", 0},
		{"memory://fenced", "accept-equal", 0},
		{"memory://accept-equal", "accept-equal", 0},
		{"memory://accept-equal", "strict", 1},
	}
	for _, tc := range cases {
		t.Run(tc.target+"/"+tc.policy, func(t *testing.T) {
			t.Parallel()
			unknown := 0
			for _, seed := range []int{1, 2, 3, 7} {
				dir := schema.TempDir(t)
				r := fencecheck(t, dir, "run", "--target", tc.target, "--policy", tc.policy, "--seed", fmt.Sprint(seed),
					"--nemesis", "pause,delay,expire,duplicate", "--store", "s", "--json")
				require.Equal(t, tc.code, r.code, "seed %d\nstdout:\n%s\nstderr:\n%s", seed, r.stdout, r.stderr)
				var res struct {
					Coverage struct {
						Repeats  int `json:"equal_token_repeats"`
						Accepted int `json:"equal_token_accepted"`
						Unknown  int `json:"unknown_outcomes"`
					} `json:"coverage"`
				}
				require.NoError(t, json.Unmarshal([]byte(r.stdout), &res), r.stdout)
				c := res.Coverage
				t.Logf("seed %d: exit %d, %d equal-token repeats (%d accepted), %d unknown outcomes", seed, r.code, c.Repeats, c.Accepted, c.Unknown)
				assert.Positive(t, c.Repeats, "seed %d: the run repeated no token", seed)
				unknown += c.Unknown
				again := fencecheck(t, dir, "check", "s/latest/history.jsonl", "--policy", tc.policy, "--checker", "both")
				assert.Equal(t, tc.code, again.code, "seed %d: check --checker both\n%s%s", seed, again.stdout, again.stderr)
			}
			assert.Positive(t, unknown, "no run had an unknown outcome")
		})
	}
}

// TestReplayTracesUnderBothPolicies: every trace that holds under strict
// holds under accept-equal, and the repeated token holds only there. The
// old token accepted first holds no stale write: it is judged with the
// stale-write gate opted out of, as the article's limit it shows.
func TestReplayTracesUnderBothPolicies(t *testing.T) {
	t.Parallel()
	dir := schema.TempDir(t)
	require.Equal(t, 0, fencecheck(t, dir, "replay").code)
	for _, tc := range []struct {
		trace               string
		strict, acceptEqual int
	}{
		{"unfenced", 1, 1},
		{"fenced", 0, 0},
		{"repeated-token", 1, 0},
		{"old-token-first", 0, 0},
	} {
		t.Run(tc.trace, func(t *testing.T) {
			for policy, code := range map[string]int{"strict": tc.strict, "accept-equal": tc.acceptEqual} {
				r := fencecheck(t, dir, "check", "replay-out/"+tc.trace+".jsonl", "--policy", policy, "--checker", "both", "--min-stale", "0")
				assert.Equal(t, code, r.code, "%s policy\n%s%s", policy, r.stdout, r.stderr)
			}
		})
	}
}
