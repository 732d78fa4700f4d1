package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
)

// TestRunWithEtcdLeases: a run whose tokens come from the embedded etcd
// cluster completes (held, or a gate not met on a starved machine: never
// violated, never a usage error), its history has the issuer's lease
// events, and the reproduce line carries --leases.
func TestRunWithEtcdLeases(t *testing.T) {
	t.Parallel()
	dir := schema.TempDir(t)
	r := fencecheck(t, dir, "run", "--store", "store", "--target", "memory://fenced", "--leases", "etcd", "--duration", "2s")
	require.Contains(t, []int{0, 2}, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	assert.Contains(t, r.stdout, "--leases etcd")
	assert.Contains(t, r.stdout, "real time")
	history, err := os.ReadFile(filepath.Join(dir, "store", "latest", "history.jsonl"))
	require.NoError(t, err)
	assert.Contains(t, string(history), `"actor":"lease","f":"acquire"`)
	assert.Contains(t, string(history), "the etcd lock key's revision")
	assert.Empty(t, strings.TrimSpace(r.stderr), "etcd logs to its file, not to stderr")
}

// TestRunRejectsBadLeases: a bad --leases is a usage error naming the
// flag, and an issuer that refuses the run an error naming it; neither
// with the secret in it.
func TestRunRejectsBadLeases(t *testing.T) {
	t.Parallel()
	for spec, want := range map[string]string{
		"bogus://":                               `--leases: "bogus://" is not a lease spec`,
		"etcd://nohost":                          `--leases: etcd://nohost: "nohost" is not a HOST:PORT endpoint`,
		"redis://u:secret@127.0.0.1:6379/notadb": "--leases: redis://u:xxxxx@127.0.0.1:6379/notadb: ",
		// A spec that parses but whose server refuses it: an error of the
		// run (still exit 3), with the password kept out.
		"redis://u:secret@127.0.0.1:6379": "open lease issuer redis://u:xxxxx@127.0.0.1:6379: ",
	} {
		t.Run(spec, func(t *testing.T) {
			t.Parallel()
			r := fencecheck(t, schema.TempDir(t), "run", "--store", "store", "--target", "memory://fenced", "--leases", spec)
			assert.Equal(t, 3, r.code, r.stderr)
			assert.Contains(t, r.stderr, want)
			assert.NotContains(t, r.stderr, "secret")
		})
	}
}
