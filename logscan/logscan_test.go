package logscan

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/internal/redact"
	"github.com/fencecheck/fencecheck/internal/termsafe"
)

// raceReport is what the race detector prints, shortened.
const raceReport = `listening on http://127.0.0.1:8787
==================
WARNING: DATA RACE
Write at 0x00c000012345 by goroutine 8:
  main.touch()
      /src/racy/main.go:20 +0x44

Previous write at 0x00c000012345 by goroutine 7:
  main.touch()
      /src/racy/main.go:20 +0x44
==================
served 10 requests
`

func quoted(rep Report, excerpt int) []string {
	var out []string
	for _, l := range rep.Excerpts[excerpt].Lines {
		out = append(out, fmt.Sprintf("%d %s", l.N, l.Text))
	}
	return out
}

func TestScan(t *testing.T) {
	own := func(line string) bool { return strings.HasPrefix(line, "--- fencecheck: ") }
	user, err := Compile(`ERROR .*lost`)
	require.NoError(t, err)
	cases := []struct {
		name    string
		log     string
		opts    func(*Options)
		hits    int
		summary string
		first   []string // the first excerpt
		check   func(t *testing.T, rep Report)
	}{
		{name: "clean", log: "started\nserved 10 requests\n", hits: 0},
		{name: "empty", log: "", hits: 0},
		{name: "a race report is one excerpt", log: raceReport, hits: 1, summary: "1 Go data race (finding), first at line 3: WARNING: DATA RACE",
			first: []string{"1 listening on http://127.0.0.1:8787", "2 ==================", "3 WARNING: DATA RACE",
				"4 Write at 0x00c000012345 by goroutine 8:", "5   main.touch()", "6       /src/racy/main.go:20 +0x44", "7 ",
				"8 Previous write at 0x00c000012345 by goroutine 7:", "9   main.touch()", "10       /src/racy/main.go:20 +0x44",
				"11 ==================", "12 served 10 requests"}},
		{name: "panic and fatal error", log: "a\npanic: runtime error: index out of range\nb\nfatal error: concurrent map writes\n",
			hits: 2, summary: "1 Go panic (finding), first at line 2: panic: runtime error: index out of range; 1 Go fatal error (finding), first at line 4: fatal error: concurrent map writes"},
		{name: "a panic net/http recovered", log: "2026/01/02 http: panic serving 127.0.0.1:4242: boom\n", hits: 1, summary: "1 recovered Go panic (warning), first at line 1: 2026/01/02 http: panic serving 127.0.0.1:4242: boom"},
		{name: "a user pattern", log: "ok\nERROR write 7 lost\n", opts: func(o *Options) { o.Patterns = append(o.Patterns, user) },
			hits: 1, summary: `1 line matching "ERROR .*lost" (finding), first at line 2: ERROR write 7 lost`, first: []string{"1 ok", "2 ERROR write 7 lost"}},
		{name: "fencecheck's own lines are context, never hits",
			log:  "--- fencecheck: start 1 of \"./recv --on-panic: exit\" at now\npanic: x\n",
			opts: func(o *Options) { o.Own = own }, hits: 1, summary: "1 Go panic (finding), first at line 2: panic: x",
			first: []string{"1 --- fencecheck: start 1 of \"./recv --on-panic: exit\" at now", "2 panic: x"}},
		{name: "the last line without a newline", log: "a\npanic: at the end", hits: 1, first: []string{"1 a", "2 panic: at the end"}},
		{name: "CRLF", log: "panic: x\r\nb\r\n", hits: 1, first: []string{"1 panic: x", "2 b"}},
		{name: "quoted lines are terminal-safe and scrubbed", log: "panic: \x1b[2Jgone s3cret\n",
			opts: func(o *Options) { o.Secrets = []string{"s3cret"} }, hits: 1,
			first: []string{`1 panic: \x1b[2Jgone ` + redact.Mask}},
		{name: "bounded: every hit counted, five excerpts quoted", log: strings.Repeat("panic: again\nfiller\nfiller\nfiller\n", 20),
			opts: func(o *Options) { o.After = 2 }, hits: 20, summary: "20 Go panics (finding), first at line 1: panic: again",
			check: func(t *testing.T, rep Report) {
				assert.Len(t, rep.Excerpts, 5)
				assert.Equal(t, 15, rep.Unquoted)
				assert.Equal(t, []string{"4 filler", "5 panic: again", "6 filler", "7 filler"}, quoted(rep, 1), "line 3 was quoted already")
			}},
		{name: "a long excerpt is cut", log: "panic: 1\n" + strings.Repeat("panic: more\n", 60),
			opts: func(o *Options) { o.MaxExcerptLines = 10 }, hits: 61,
			check: func(t *testing.T, rep Report) {
				assert.Len(t, rep.Excerpts[0].Lines, 10)
				assert.Equal(t, 11, rep.Excerpts[1].At, "the hit after the full excerpt starts the next one")
				assert.Equal(t, 61-50, rep.Unquoted)
			}},
		{name: "a long line is matched by its start", log: strings.Repeat("x", 100) + "panic: late\npanic: " + strings.Repeat("y", 100) + "\n",
			opts: func(o *Options) { o.MaxLine = 50 }, hits: 1,
			check: func(t *testing.T, rep Report) {
				assert.Equal(t, 2, rep.Lines)
				assert.Equal(t, "panic: "+strings.Repeat("y", 43), rep.Excerpts[0].Lines[1].Text)
			}},
		{name: "a line longer than the read buffer", log: strings.Repeat("z", 200_000) + " WARNING: DATA RACE\n", opts: func(o *Options) { o.MaxLine = 0 }, hits: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := DefaultOptions()
			if tc.opts != nil {
				tc.opts(&o)
			}
			rep, err := Scan(strings.NewReader(tc.log), o)
			require.NoError(t, err)
			assert.Equal(t, tc.hits, rep.Hits)
			assert.Equal(t, tc.hits > 0, rep.Found())
			if tc.summary != "" {
				assert.Equal(t, tc.summary, rep.Summary())
			}
			if tc.first != nil {
				require.NotEmpty(t, rep.Excerpts)
				assert.Equal(t, tc.first, quoted(rep, 0))
			}
			if tc.check != nil {
				tc.check(t, rep)
			}
		})
	}
}

func TestScanReadError(t *testing.T) {
	broken := errors.New("disk gone")
	r := iotest.DataErrReader(strings.NewReader("panic: x\nmore"))
	rep, err := Scan(r, DefaultOptions())
	require.NoError(t, err)
	assert.Equal(t, 2, rep.Lines)

	rep, err = Scan(iotestHalf("panic: before\n", broken), DefaultOptions())
	assert.ErrorIs(t, err, broken)
	assert.Equal(t, 1, rep.Hits, "what was read before the error is reported")
}

// iotestHalf reads s, then fails with err.
func iotestHalf(s string, err error) *errAfter { return &errAfter{r: strings.NewReader(s), err: err} }

type errAfter struct {
	r   *strings.Reader
	err error
}

func (e *errAfter) Read(p []byte) (int, error) {
	if e.r.Len() == 0 {
		return 0, e.err
	}
	return e.r.Read(p)
}

func TestScanFileMissing(t *testing.T) {
	rep, err := ScanFile(t.TempDir()+"/receiver.log", DefaultOptions())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "receiver.log")
	assert.False(t, rep.Found())
}

func TestCompile(t *testing.T) {
	for _, tc := range []struct {
		expr, err string
	}{
		{`ERROR`, ""},
		{`lost write \d+`, ""},
		{``, "empty pattern"},
		{`(`, "missing closing )"},
		{`x*`, "matches an empty line"},
	} {
		t.Run(tc.expr, func(t *testing.T) {
			p, err := Compile(tc.expr)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.expr, p.Name)
		})
	}
}

// FuzzScan: whatever the log, the scan ends, every line is counted, every
// hit starts at a line a pattern matches, the counts add up, findings are
// hits, the bounds hold, quoted lines are safe and in order, and the claim
// can be worded.
func FuzzScan(f *testing.F) {
	for _, seed := range []string{raceReport, "", "\n", "panic: x", "a\r\npanic: b\r\n", "\x1b[31mfatal error: y\n",
		strings.Repeat("WARNING: DATA RACE\n", 30), "x\xffpanic:\n", "--- fencecheck: panic:\npanic:\n",
		"Traceback (most recent call last):\n  File \"x\"\nKeyError: 1\n\nDuring handling of the above exception, another exception occurred:\n\nTraceback (most recent call last):\nValueError: 2\n--- fencecheck: pid 1 exited on its own\n",
		"Error: boom\n    at x\n\nNode.js v20\n--- fencecheck: pid 1 exited on its own\n",
		"thread 'main' (1) panicked at a.rs:1:1:\nboom\n", "Exception in thread \"main\" java.lang.X: y\n\tat A\nCaused by: z\n"} {
		f.Add([]byte(seed), uint8(2), uint8(3), uint8(16))
	}
	for _, name := range logFiles(f) {
		data, err := os.ReadFile(name)
		require.NoError(f, err)
		f.Add(data, uint8(2), uint8(12), uint8(0))
	}
	f.Fuzz(func(t *testing.T, log []byte, before, after, maxLine uint8) {
		o := DefaultOptions()
		o.Before, o.After, o.MaxLine = int(before%5), int(after%20), int(maxLine)
		o.MaxExcerpts, o.MaxExcerptLines = 3, 8
		o.Own = func(line string) bool { return strings.HasPrefix(line, "--- fencecheck: ") }
		o.Exited = func(line string) bool { return strings.Contains(line, "exited on its own") }
		rep, err := Scan(bytes.NewReader(log), o)
		require.NoError(t, err)

		matching, total := naive(log, o)
		assert.Equal(t, total, rep.Lines)
		assert.LessOrEqual(t, rep.Hits, matching, "every hit starts at a matching line")
		assert.LessOrEqual(t, rep.Findings, rep.Hits)
		assert.Equal(t, rep.Hits > 0, rep.Found())
		hits, findings := 0, 0
		for _, c := range rep.Counts {
			hits += c.Hits
			findings += c.Findings
			assert.LessOrEqual(t, c.Findings, c.Hits)
			assert.Equal(t, termsafe.String(c.Example), c.Example, "an example is terminal-safe")
			assert.LessOrEqual(t, len(c.Example), maxExample+len("…"))
		}
		assert.Equal(t, rep.Hits, hits)
		assert.Equal(t, rep.Findings, findings)
		assert.LessOrEqual(t, len(rep.Excerpts), o.MaxExcerpts)
		assert.LessOrEqual(t, rep.Unquoted, rep.Hits)
		last := 0
		for _, ex := range rep.Excerpts {
			assert.LessOrEqual(t, len(ex.Lines), o.MaxExcerptLines)
			for _, l := range ex.Lines {
				assert.Greater(t, l.N, last, "every line quoted once, in order")
				last = l.N
				assert.Equal(t, termsafe.String(l.Text), l.Text, "quoted text is terminal-safe")
			}
		}
		assert.Contains(t, rep.Claim(), "searched "+lines(total))
	})
}

// naive counts the lines any pattern matches and all lines the simple
// way.
func naive(log []byte, o Options) (hits, lines int) {
	parts := bytes.Split(log, []byte("\n"))
	if len(parts[len(parts)-1]) == 0 {
		parts = parts[:len(parts)-1]
	}
	for _, p := range parts {
		if o.MaxLine > 0 && len(p) > o.MaxLine {
			p = p[:o.MaxLine]
		}
		if matches(strings.TrimRight(string(p), "\r\n"), o) {
			hits++
		}
	}
	return hits, len(parts)
}

func matches(line string, o Options) bool {
	if o.Own(line) {
		return false
	}
	for _, p := range o.Patterns {
		if p.Re.MatchString(line) {
			return true
		}
	}
	return false
}

func TestOutcome(t *testing.T) {
	var none *Outcome
	assert.False(t, none.Fails(), "no log, no hit")
	assert.False(t, none.Unread())

	rep, err := Scan(strings.NewReader("panic: one\npanic: two\n"), DefaultOptions())
	require.NoError(t, err)
	rep.File = "/run/receiver.log"
	o := NewOutcome(rep, nil)
	assert.True(t, o.Fails())
	assert.Equal(t, "the receiver's log (receiver.log) shows 2 Go panics (finding), first at line 1: panic: one", o.Reason())
	var b strings.Builder
	o.WriteExcerpts(&b, "> ")
	assert.Equal(t, "> Go panic at line 1:\n>        1 | panic: one\n>        2 | panic: two\n", b.String())
	assert.Equal(t, []string{"The receiver's log (receiver.log) shows 2 Go panics (finding), first at line 1: panic: one."}, o.Sentences())

	o = NewOutcome(Report{File: "/run/receiver.log"}, errors.New("read: \x1b[2J gone"))
	assert.True(t, o.Unread())
	assert.False(t, o.Fails())
	assert.Equal(t, `receiver.log not read to its end (read: \x1b[2J gone)`, o.Line(), "terminal-safe")
}
