package replay

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/check"
	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/model"
	"github.com/fencecheck/fencecheck/targets"
	"github.com/fencecheck/fencecheck/targets/memory"
	"github.com/fencecheck/fencecheck/workload"
)

func seedReceivers() Receivers {
	return Receivers{
		Fenced:   func() targets.Target { return memory.NewAcceptEqual() },
		Unfenced: func() targets.Target { return memory.NewUnfenced() },
	}
}

// TestSeedTable is the article's five-step table, for both resources, as the
// receivers actually answered it.
func TestSeedTable(t *testing.T) {
	t.Parallel()
	rep, err := Run(context.Background(), seedReceivers())
	require.NoError(t, err)
	want := []Row{
		{1, "A receives token 41 and reads its input", "No result has been written", "No result has been written"},
		{2, "A pauses; its lease expires", "Expiry alone does not modify the resource", "Expiry alone does not modify the resource"},
		{3, "B receives token 42 and writes a new result", "Resource stores the new result; no token is checked", "Resource accepts 42 and records it"},
		{4, "A resumes and submits its old result with 41", "Resource accepts 41: the old result replaces the new one", "Resource rejects 41 because 42 was already accepted"},
		{5, "B submits the same result again with 42", "Resource accepts it; nothing is checked", "Token check accepts it; duplicate suppression is a separate concern"},
	}
	require.Len(t, rep.Comparison, len(want))
	for i, row := range want {
		t.Run(row.Event, func(t *testing.T) {
			assert.Equal(t, row, rep.Comparison[i])
		})
	}
}

func TestReplayLines(t *testing.T) {
	t.Parallel()
	rep, err := Run(context.Background(), seedReceivers())
	require.NoError(t, err)
	assert.Equal(t, []string{
		"unfenced final value: old-result",
		"fenced final value: new-result",
		"repeated current token: accepted",
		"old token before newer token reaches resource: accepted",
	}, rep.Lines())
}

func TestReplayWithStrictReceiverRejectsTheRepeat(t *testing.T) {
	t.Parallel()
	rep, err := Run(context.Background(), Receivers{
		Fenced:   func() targets.Target { return memory.NewFenced() },
		Unfenced: func() targets.Target { return memory.NewUnfenced() },
	})
	require.NoError(t, err)
	assert.Equal(t, "repeated current token: rejected", rep.Lines()[2])
	assert.Equal(t, "old token before newer token reaches resource: accepted", rep.Lines()[3])
}

// TestTracesJudged checks each case's trace with the checker, under the
// policy the article's receiver implements and under strict.
func TestTracesJudged(t *testing.T) {
	t.Parallel()
	rep, err := Run(context.Background(), seedReceivers())
	require.NoError(t, err)
	want := map[string][2]check.Verdict{ // strict, accept-equal
		"unfenced":        {check.Violated, check.Violated},
		"fenced":          {check.Held, check.Held},
		"repeated-token":  {check.Violated, check.Held},
		"old-token-first": {check.Held, check.Held},
	}
	for _, tr := range rep.Traces {
		t.Run(tr.Name, func(t *testing.T) {
			h, err := histories.Pair(tr.Events)
			require.NoError(t, err)
			for i, p := range []model.Policy{model.Strict, model.AcceptEqual} {
				assert.Equal(t, want[tr.Name][i], porcupineVerdict(t, h.Expand(nil), p), "policy %s", p)
			}
			assert.Empty(t, check.CheckIssuer(h.Others), "the replay's grants break the issuer's invariant")
		})
	}
}

func TestReplayIsDeterministic(t *testing.T) {
	t.Parallel()
	dirs := []string{schema.TempDir(t), schema.TempDir(t)}
	for _, dir := range dirs {
		rep, err := Run(context.Background(), seedReceivers())
		require.NoError(t, err)
		_, err = rep.WriteFiles(dir)
		require.NoError(t, err)
	}
	n := 0
	require.NoError(t, filepath.WalkDir(dirs[0], func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		rel, err := filepath.Rel(dirs[0], path)
		require.NoError(t, err)
		a, err := os.ReadFile(path)
		require.NoError(t, err)
		b, err := os.ReadFile(filepath.Join(dirs[1], rel))
		require.NoError(t, err)
		assert.True(t, bytes.Equal(a, b), "%s differs between runs", rel)
		return nil
	}))
	assert.Equal(t, 6+2+2*len(workload.Strategies()), n, "the cases, the comparison, the strategy table and its traces")
}

// porcupineVerdict is porcupine's verdict on ops under policy p.
func porcupineVerdict(t *testing.T, ops []histories.Operation, p model.Policy) check.Verdict {
	t.Helper()
	res, err := check.Check(context.Background(), histories.FromOperations(ops), check.Options{Policy: p, Checker: check.Porcupine})
	require.NoError(t, err)
	return res.Verdict
}

// TestWriteTextForPeople: the text the replay prints begins with the four
// lines, shows both tables and the limit the last line names, and ends
// with the files written.
func TestWriteTextForPeople(t *testing.T) {
	t.Parallel()
	rep, err := Run(context.Background(), seedReceivers())
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, rep.WriteText(&b, []string{"out/unfenced.jsonl", "out/comparison.csv"}))
	text := b.String()
	assert.True(t, strings.HasPrefix(text, "unfenced final value: old-result\nfenced final value: new-result\n"), text)
	assert.Contains(t, text, "| Step | Event | Without fencing | With fencing |")
	assert.Contains(t, text, "The last line is the critical limit")
	assert.Contains(t, text, "| Strategy | Receiver |")
	assert.True(t, strings.HasSuffix(text, "\nwrote out/unfenced.jsonl\nwrote out/comparison.csv\n"), text)
}
