package histories

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFinalLineWithoutNewline: only a final line cut short in the middle
// of its JSON is dropped, as a killed writer leaves it; a complete final
// line is validated like every other, with or without its newline, so a
// bad value on it is an error, not a dropped line (a dropped line could
// flip the verdict). Both readers agree.
func TestFinalLineWithoutNewline(t *testing.T) {
	t.Parallel()
	good := strings.Join(goodLines(4), "\n") + "\n"
	badOutcome := `{"index":4,"time":5000,"process":9,"type":"invoke","f":"write","resource":"r","token":7,"value":"v"}` + "\n" +
		`{"index":5,"time":5001,"process":9,"type":"ok","f":"write","resource":"r","token":7,"value":"v","outcome":"acepted"}`
	for _, tc := range []struct {
		name      string
		tail      string
		truncated bool
		err       string // the error, when the tail is not dropped
	}{
		{"cut inside a string", `{"index":4,"time":5000,"process":9,"type":"inv`, true, ""},
		{"cut after a field", `{"index":4,"time":5000,`, true, ""},
		{"cut after the brace", `{`, true, ""},
		{"cut inside a character", "{\"index\":4,\"time\":5000,\"process\":9,\"type\":\"invoke\",\"f\":\"read\",\"resource\":\"\xc3", true, ""},
		{"invalid UTF-8 on a complete line", "{\"index\":4,\"time\":5000,\"process\":9,\"type\":\"invoke\",\"f\":\"read\",\"resource\":\"\xc3\"}", false, `h.jsonl:5: field "resource": invalid UTF-8`},
		{"complete line with a bad outcome", badOutcome, false, `h.jsonl:6: field "outcome"`},
		{"complete line with a bad outcome and a newline", badOutcome + "\n", false, `h.jsonl:6: field "outcome"`},
		{"binary without a newline", "\x00\x01\xfe\xffgarbage", false, "h.jsonl:5: not a JSON object"},
		{"a number that is not an object", "42", false, "h.jsonl:5: not a JSON object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			content := good + tc.tail
			seq, seqErr := readSequential(strings.NewReader(content), "h.jsonl")
			par, parErr := readBlocks(strings.NewReader(content), "h.jsonl", 2, 64, 0)
			for _, r := range []struct {
				h   *History
				err error
			}{{seq, seqErr}, {par, parErr}} {
				if tc.err != "" {
					require.Error(t, r.err)
					assert.Contains(t, r.err.Error(), tc.err)
					continue
				}
				require.NoError(t, r.err)
				assert.Equal(t, tc.truncated, r.h.Truncated)
				assert.Len(t, operations(r.h), 2)
			}
		})
	}
}
