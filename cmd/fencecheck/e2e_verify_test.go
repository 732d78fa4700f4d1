package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
			dir := t.TempDir()
			r := fencecheck(t, dir, "verify", "--target", tc.target, "--store", "s", "--junit", "verify.xml")
			assert.Equal(t, tc.code, r.code, r.stdout+r.stderr)
			xml, err := os.ReadFile(filepath.Join(dir, "verify.xml"))
			require.NoError(t, err)
			assert.Equal(t, 8, strings.Count(string(xml), "<testcase "), "one case per scenario")
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
