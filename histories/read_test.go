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

// TestReadJoinsSeveralSources: one file is read as it is, with no parts;
// several are joined as Join joins them, named by their paths; a missing
// file and a cancelled context are errors naming the file.
func TestReadJoinsSeveralSources(t *testing.T) {
	t.Parallel()
	dir := t.TempDir() // not validated: history files written by hand, no result or report
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

	one, err := histories.Read(context.Background(), histories.Source{Path: a})
	require.NoError(t, err)
	assert.Nil(t, one.Parts)
	raw, err := os.ReadFile(a)
	require.NoError(t, err)
	alone, err := histories.Read(context.Background(), histories.Source{Path: a, Reader: bytes.NewReader(raw)})
	require.NoError(t, err)
	assert.Equal(t, alone.Expand(nil), one.Expand(nil))

	joined, err := histories.Read(context.Background(), histories.Source{Path: a}, histories.Source{Path: b})
	require.NoError(t, err)
	require.Len(t, joined.Parts, 2)
	assert.Equal(t, []string{a, b}, []string{joined.Parts[0].Name, joined.Parts[1].Name})
	assert.Len(t, joined.Expand(nil), 8)
	ha, err := histories.Read(context.Background(), histories.Source{Path: a})
	require.NoError(t, err)
	hb, err := histories.Read(context.Background(), histories.Source{Path: b})
	require.NoError(t, err)
	want, placed, err := histories.Join([]histories.Part{{Name: a, History: ha}, {Name: b, History: hb}})
	require.NoError(t, err)
	assert.Equal(t, placed, joined.Parts)
	assert.Equal(t, want.Expand(nil), joined.Expand(nil))

	_, err = histories.Read(context.Background(), histories.Source{Path: a}, histories.Source{Path: filepath.Join(dir, "nope.jsonl")})
	assert.ErrorContains(t, err, "open history "+filepath.Join(dir, "nope.jsonl"))

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = histories.Read(ctx, histories.Source{Path: a})
	if err != nil { // the read may win the race with the cancelled context
		assert.ErrorIs(t, err, context.Canceled)
		assert.ErrorContains(t, err, "read "+a)
	}
	_, err = histories.Read(ctx, histories.Source{Path: a, Reader: bytes.NewReader(raw)})
	assert.ErrorIs(t, err, context.Canceled, "a stream is not read once ctx is done")
}
