package histories

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
)

// goodLines returns n valid lines: alternating write invocations and
// accepted completions by one process.
func goodLines(n int) []string {
	var lines []string
	for i := 0; i < n; i++ {
		if i%2 == 0 {
			lines = append(lines, fmt.Sprintf(`{"index":%d,"time":%d,"process":0,"type":"invoke","f":"write","resource":"r","token":%d,"value":"v%d"}`, i, i*10, i+1, i))
		} else {
			lines = append(lines, fmt.Sprintf(`{"index":%d,"time":%d,"process":0,"type":"ok","f":"write","resource":"r","token":%d,"value":"v%d","outcome":"accepted"}`, i, i*10, i, i-1))
		}
	}
	return lines
}

func writeHistory(t *testing.T, content string) string {
	t.Helper()
	// not validated: histories made by hand, many malformed on purpose
	path := filepath.Join(t.TempDir(), "history.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	return path
}

func TestReadFileNamesFileLineAndField(t *testing.T) {
	t.Parallel()
	lines := goodLines(20)
	lines[16] = `{"index":16,"time":160,"process":0,"type":"invoke","f":"write","resource":"r","token":"x","value":"v"}`
	path := writeHistory(t, strings.Join(lines, "\n")+"\n")
	_, err := Read(t.Context(), Source{Path: path})
	require.Error(t, err)
	assert.Equal(t, path+`:17: field "token": not an unsigned integer`, err.Error())
	var le *lineError
	require.ErrorAs(t, err, &le)
	assert.Equal(t, 17, le.line)
}

func TestReadFileCountsBlankLinesInLineNumbers(t *testing.T) {
	t.Parallel()
	lines := goodLines(4)
	content := lines[0] + "\n\n" + lines[1] + "\n" + `{"index":2` + "\n"
	_, err := Read(t.Context(), Source{Path: writeHistory(t, content)})
	require.Error(t, err)
	assert.Contains(t, err.Error(), ":4: ")
}

func TestReadFileMissing(t *testing.T) {
	t.Parallel()
	_, err := Read(t.Context(), Source{Path: filepath.Join(schema.TempDir(t), "nope.jsonl")})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "open history")
}

func TestReadDropsTruncatedLastLine(t *testing.T) {
	t.Parallel()
	lines := goodLines(6)
	content := strings.Join(lines, "\n") + "\n" + lines[0][:30]
	h, err := Read(t.Context(), Source{Path: writeHistory(t, content)})
	require.NoError(t, err)
	assert.True(t, h.Truncated)
	assert.Len(t, operations(h), 3)
}

func TestReadAcceptsLastLineWithoutNewline(t *testing.T) {
	t.Parallel()
	h, err := Read(t.Context(), Source{Path: writeHistory(t, strings.Join(goodLines(4), "\n"))})
	require.NoError(t, err)
	assert.False(t, h.Truncated)
	assert.Len(t, operations(h), 2)
	assert.Equal(t, StatusAccepted, operations(h)[1].Status)
}

func TestReadHandlesLinesLongerThanTheBuffer(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 3<<20)
	content := fmt.Sprintf(`{"index":0,"time":0,"process":0,"type":"invoke","f":"write","resource":"r","token":1,"value":"%s"}`+"\n", big)
	h, err := Read(t.Context(), Source{Path: writeHistory(t, content)})
	require.NoError(t, err)
	require.Len(t, operations(h), 1)
	assert.Len(t, operations(h)[0].Value, len(big))
}

func TestReadLargeHistoryStreams(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for _, l := range goodLines(200000) {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	h, err := Read(t.Context(), Source{Path: "big.jsonl", Reader: strings.NewReader(b.String())})
	require.NoError(t, err)
	assert.Len(t, operations(h), 100000)
	assert.Equal(t, 200000, h.Events)
}

// TestLineLimitIsExact: a line of maxLineBytes (its newline not counted)
// is read, one byte more is refused, by the sequential reader and by
// the parallel reader alike, whether or not the line ends in a newline.
func TestLineLimitIsExact(t *testing.T) {
	t.Parallel()
	line := func(n int) string {
		head := `{"index":0,"time":0,"process":0,"type":"invoke","f":"write","resource":"r","token":1,"value":"`
		return head + strings.Repeat("x", n-len(head)-2) + `"}`
	}
	for _, tc := range []struct {
		name    string
		content string
		ok      bool
	}{
		{"at the limit", line(maxLineBytes) + "\n", true},
		{"at the limit, last line without newline", line(maxLineBytes), true},
		{"one byte over", line(maxLineBytes+1) + "\n", false},
		{"one byte over, without newline", line(maxLineBytes + 1), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, seqErr := readSequential(strings.NewReader(tc.content), "h.jsonl")
			_, parErr := readBlocks(strings.NewReader(tc.content), "h.jsonl", 2, blockBytes, 0)
			for _, err := range []error{seqErr, parErr} {
				if tc.ok {
					assert.NoError(t, err)
				} else {
					assert.ErrorContains(t, err, ":1: line longer than")
				}
			}
		})
	}
}
