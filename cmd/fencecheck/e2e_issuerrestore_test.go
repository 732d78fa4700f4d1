package main

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
)

// TestIssuerRestore: the embedded etcd cluster restored from a snapshot
// taken during the run, as an operator who forgets --bump-revision
// restores it, grants tokens again below those it granted after the
// snapshot: the run is violated, blaming the token issuer and naming
// the restore; restored with its revision bumped past every grant (and
// marked compacted), the same run holds. The snapshot and the restore
// come at workers' pause points (the first one, then once three grants
// above the snapshot were seen on each resource), not on a timer, and
// the run is bounded by its operations.
func TestIssuerRestore(t *testing.T) {
	t.Parallel()
	cases := []struct {
		fault   string
		code    int
		verdict string
		restore string // in the restore event
	}{
		{"issuer-restore", 1, "verdict     VIOLATED: the token issuer, not the receiver: ", "without --bump-revision: its revision went back from"},
		{"issuer-restore-bumped", 0, "verdict     HELD: ", "with --bump-revision"},
	}
	for _, tc := range cases {
		// One after another: each run is four race-enabled processes.
		t.Run(tc.fault, func(t *testing.T) {
			dir := schema.TempDir(t)
			r := fencecheck(t, dir, "run", "--store", "s", "--target", "memory://fenced", "--leases", "etcd",
				"--nemesis", "pause,delay,"+tc.fault, "--ops", "200")
			require.Equal(t, tc.code, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			assert.Contains(t, r.stdout, "tokens from embedded etcd (3 members)")
			assert.Contains(t, r.stdout, tc.verdict)
			verdict := regexp.MustCompile(`(?m)^verdict .*$`).FindString(r.stdout)
			t.Logf("%s: exit %d; %s", tc.fault, r.code, verdict)
			if tc.code == 1 {
				assert.Contains(t, verdict, "after the issuer was restored from a snapshot: etcd cluster restored from its snapshot at revision ")
				assert.Contains(t, verdict, tc.restore)
				assert.Contains(t, verdict, "("+tc.fault+", index ")
			}
			runs, err := filepath.Glob(filepath.Join(dir, "s", "*", "2*"))
			require.NoError(t, err)
			require.Len(t, runs, 1)
			history, err := os.ReadFile(filepath.Join(runs[0], "history.jsonl"))
			require.NoError(t, err)
			assert.Contains(t, string(history), `"f":"restore","fault":"`+tc.fault+`","detail":"every server stopped and restored from the snapshot at `)
			restore := regexp.MustCompile(`"f":"end","fault":"` + tc.fault + `","detail":"([^"]*)"`).FindSubmatch(history)
			require.NotNil(t, restore, "the history has the restore's end")
			t.Logf("%s: %s", tc.fault, restore[1])
			assert.Contains(t, string(restore[1]), tc.restore)
			assert.NoFileExists(t, filepath.Join(runs[0], "etcd", "snapshot.db"), "the snapshot is deleted with the data")
			assert.Empty(t, membersOf(t, runs[0]), "member processes outlived the run")
		})
	}
}
