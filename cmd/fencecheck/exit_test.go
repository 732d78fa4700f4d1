package main

import (
	"bytes"
	"context"
	"net"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
)

// TestUsageHintOnlyAfterUsageErrors: "Run 'fencecheck --help' for usage."
// follows a bad flag or argument, and never an error of the run itself
// (an unreachable target, a missing history, a port in use), which help
// would not fix.
// All of them exit 3.
func TestUsageHintOnlyAfterUsageErrors(t *testing.T) {
	t.Parallel()
	const hint = "Run 'fencecheck --help' for usage."
	dir := schema.TempDir(t)
	store := filepath.Join(dir, "s")
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { busy.Close() })
	cases := []struct {
		name  string
		args  []string
		says  string
		usage bool
	}{
		{"unknown flag", []string{"run", "--bogus"}, "unknown flag: --bogus", true},
		{"bad flag value", []string{"run", "--target", "memory://fenced", "--workers", "many"}, "--workers", true},
		{"missing argument", []string{"check"}, "want", true},
		{"unknown target scheme", []string{"run", "--target", "ftp://x", "--store", store}, "unsupported scheme", true},
		{"unreachable PostgreSQL", []string{"run", "--target", "postgres://postgres@127.0.0.1:1/test", "--store", store}, "failed to connect", false},
		{"unreachable HTTP receiver", []string{"verify", "--target", "http://" + freeAddr(t), "--store", store}, "does not answer", false},
		{"serve on a port in use", []string{"serve", "--store", dir, "--listen", busy.Addr().String()}, "address already in use", false},
		{"receiver on a port in use", []string{"receiver", "--listen", busy.Addr().String()}, "address already in use", false},
		{"missing history", []string{"check", filepath.Join(dir, "none.jsonl")}, "no such file or directory", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), tc.args, &stdout, &stderr)
			assert.Equal(t, exitError, code, "stderr: %s", stderr.String())
			assert.Contains(t, stderr.String(), tc.says)
			if tc.usage {
				assert.Contains(t, stderr.String(), hint)
			} else {
				assert.NotContains(t, stderr.String(), hint)
			}
		})
	}
}
