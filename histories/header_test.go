package histories

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// headerLine is the header as every history fencecheck writes begins,
// byte for byte: a reader (or a person running head -1) relies on it,
// and it must not vary between runs or builds.
const headerLine = `{"index":0,"time":0,"actor":"harness","f":"header","format":1,"detail":"fencecheck history; the format: docs/history-format.md"}` + "\n"

// readBoth reads content with the sequential reader and with the parallel
// pipeline (tiny blocks) and requires the same history or error.
func readBoth(t *testing.T, content string) (*History, error) {
	t.Helper()
	want, wantErr := readSequential(strings.NewReader(content), "h.jsonl")
	got, err := readBlocks(strings.NewReader(content), "h.jsonl", 2, 64, 0)
	require.Equal(t, fmt.Sprint(wantErr), fmt.Sprint(err), "the parallel reader's error")
	require.Equal(t, want, got, "the parallel reader's history")
	return want, wantErr
}

func TestRecorderWritesTheHeaderFirst(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	rec := NewRecorder(&buf, RecorderOptions{Clock: &stepClock{t: []int64{0}}, Retain: true})
	w := inv(0, 0, 3, FWrite, 41, "a")
	rec.Record(&w)
	require.NoError(t, rec.Close())
	lines := strings.SplitAfter(buf.String(), "\n")
	require.Len(t, lines, 3) // the header, the event, and "" after the last newline
	assert.Equal(t, headerLine, lines[0])
	assert.True(t, strings.HasPrefix(lines[1], `{"index":1,`), "the first event takes index 1: %s", lines[1])
	assert.Equal(t, int64(FirstIndex), w.Index)
	assert.Zero(t, w.Time, "the first event keeps its clock's time, even the header's 0")
	assert.Equal(t, []Event{w}, rec.Events(), "Events holds what Record recorded, not the header")

	h, err := readBoth(t, buf.String())
	require.NoError(t, err)
	assert.Equal(t, formatVersion, h.Format)
	assert.Equal(t, 1, h.Events, "the header is not counted as an event")
	assert.Empty(t, h.Others, "the header is not shown as an event of the run")
	require.Len(t, operations(h), 1)
	assert.Equal(t, int64(1), operations(h)[0].InvokeIndex)
}

func TestWriteAddsTheHeader(t *testing.T) {
	t.Parallel()
	events := []Event{inv(1, 10, 0, FWrite, 41, "a"), done(2, 20, 0, TypeOK, FWrite, Accepted)}
	var buf bytes.Buffer
	require.NoError(t, Write(&buf, events))
	assert.True(t, strings.HasPrefix(buf.String(), headerLine))

	// Read back event by event, header included, the events write to
	// the same bytes: Write keeps a header it is given.
	rd := newReader(bytes.NewReader(buf.Bytes()), "h.jsonl")
	var back []Event
	for {
		var e Event
		if err := rd.next(&e); err != nil {
			break
		}
		back = append(back, e)
	}
	require.Len(t, back, 3)
	assert.True(t, back[0].isHeader())
	var again bytes.Buffer
	require.NoError(t, Write(&again, back))
	assert.Equal(t, buf.String(), again.String())

	var empty bytes.Buffer
	require.NoError(t, Write(&empty, nil))
	assert.Equal(t, headerLine, empty.String(), "a history without events is its header")
}

func TestWriteRefusesAnEventAtTheHeadersIndex(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	err := Write(&buf, []Event{inv(0, 0, 0, FRead, 0, "")})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "number events from 1")
	assert.Zero(t, buf.Len(), "nothing is written")
}

func TestHistoryWithoutHeaderStillReads(t *testing.T) {
	t.Parallel()
	h, err := readBoth(t, strings.Join(goodLines(4), "\n")+"\n")
	require.NoError(t, err)
	assert.Zero(t, h.Format, "a history without a header is format 0")
	require.Len(t, operations(h), 2)
	assert.Equal(t, int64(0), operations(h)[0].InvokeIndex)
}

// TestHeaderErrors: what a reader refuses about a header, with the line
// and the field, from both readers.
func TestHeaderErrors(t *testing.T) {
	t.Parallel()
	event := func(i int) string {
		return fmt.Sprintf(`{"index":%d,"time":%d,"process":0,"type":"invoke","f":"read","resource":"r"}`, i, 10*i)
	}
	header := func(rest string) string { return `{"index":0,"time":0,"actor":"harness","f":"header"` + rest + `}` }
	for _, tc := range []struct {
		name, content, want string
	}{
		{"a newer format", header(`,"format":2`) + "\n" + event(1) + "\n",
			`h.jsonl:1: field "format": 2 is newer than this fencecheck reads (up to 1): read the file with a newer fencecheck`},
		{"a far newer format", header(`,"format":99999999999`) + "\n",
			`h.jsonl:1: field "format": 99999999999 is newer than this fencecheck reads (up to 1): read the file with a newer fencecheck`},
		{"format 0", header(`,"format":0`) + "\n",
			`h.jsonl:1: field "format": 0 is not a format version (headers begin at 1; a file without a header is format 0)`},
		{"no format", header(``) + "\n", `h.jsonl:1: field "format": missing on the header`},
		{"a format that is no integer", header(`,"format":"1"`) + "\n", `h.jsonl:1: field "format": not a non-negative integer`},
		{"a header after an event", event(0) + "\n" + header(`,"format":1`) + "\n",
			`h.jsonl:2: field "f": a header after the event at index 0: the header must be the first line of a history`},
		{"two headers", header(`,"format":1`) + "\n" + header(`,"format":1`) + "\n",
			`h.jsonl:2: field "f": a header after the event at index 0: the header must be the first line of a history`},
		{"an event at the header's index", header(`,"format":1`) + "\n" + event(0) + "\n",
			`h.jsonl:2: field "index": 0 does not increase (previous event has 0)`},
		{"a format on another event", `{"index":0,"time":0,"actor":"harness","f":"initial","resource":"r","token":1,"value":"v","format":1}` + "\n",
			`h.jsonl:1: field "format": only the header (actor harness, f header) names a format`},
		{"a format on a client event", `{"index":0,"time":0,"process":0,"type":"invoke","f":"read","resource":"r","format":1}` + "\n",
			`h.jsonl:1: field "format": only the header (actor harness, f header) names a format`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := readBoth(t, tc.content)
			require.Error(t, err)
			assert.Equal(t, tc.want, err.Error())
			var le *lineError
			require.True(t, errors.As(err, &le))
		})
	}
}

// TestReadFileRefusesANewerFormat: through the file API a user calls,
// the error names the file, line 1 and the field.
func TestReadFileRefusesANewerFormat(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "history.jsonl") // not validated: a newer format on purpose
	require.NoError(t, os.WriteFile(path, []byte(strings.Replace(headerLine, `"format":1`, `"format":2`, 1)), 0o644))
	_, err := Read(t.Context(), Source{Path: path})
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), path+`:1: field "format": 2 is newer`), err.Error())
}
