package histories_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
)

// TestReadFilesJoinsThem: one file is read as ReadFile reads it, several
// are joined as Join joins them, named by their paths; a missing file
// and a cancelled context are errors naming the file.
func TestReadFilesJoinsThem(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, resource string) string {
		var buf bytes.Buffer
		events := shardEvents(resource)
		for i := range events {
			events[i].Index++ // the file's header takes index 0
		}
		require.NoError(t, histories.Write(&buf, events))
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
		return path
	}
	a, b := write("a.jsonl", "r0"), write("b.jsonl", "r1")

	one, placed, err := histories.ReadFiles(context.Background(), []string{a})
	require.NoError(t, err)
	assert.Nil(t, placed)
	alone, err := histories.ReadFile(a)
	require.NoError(t, err)
	assert.Equal(t, alone.Expand(nil), one.Expand(nil))

	joined, placed, err := histories.ReadFiles(context.Background(), []string{a, b})
	require.NoError(t, err)
	require.Len(t, placed, 2)
	assert.Equal(t, []string{a, b}, []string{placed[0].Name, placed[1].Name})
	assert.Len(t, joined.Expand(nil), 8)

	_, _, err = histories.ReadFiles(context.Background(), []string{a, filepath.Join(dir, "nope.jsonl")})
	assert.ErrorContains(t, err, "open history "+filepath.Join(dir, "nope.jsonl"))

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err = histories.ReadFiles(ctx, []string{a})
	if err != nil { // the read may win the race with the cancelled context
		assert.ErrorIs(t, err, context.Canceled)
		assert.ErrorContains(t, err, "read "+a)
	}
}
