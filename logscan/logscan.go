// Package logscan reads a receiver's log for the signs of a bug that the
// history cannot show: the crash signatures of the common runtimes (Go's
// panics, fatal errors and the race detector's reports, Python's
// tracebacks, Java's uncaught exceptions, Node's unhandled errors, Rust's
// panics; Builtin) and the lines the user named, as Jepsen's
// log-file-pattern checker does. A receiver that answered every request
// correctly while the race detector reported a race on each of them is
// not correct; its answers were lucky.
//
// A crash that ended the process is a finding; one the receiver lived
// through (a handler's traceback a server caught and logged) is a
// warning, counted and quoted (Pattern says which is which). A stack is
// one hit, however many lines it has. A claim (Report.Claim) names what
// was searched, so that "none found" is never read as more than it is:
// a log of a program not built with the race detector says nothing about
// data races (Executable).
//
// Scan streams the log line by line, so that a large log costs one line
// and a few lines of context in memory, and quotes a bounded number of
// hits with their context. Every hit is counted, quoted or not, so that
// a hit beyond the quoting bound is never lost. The quoted lines are made
// safe for a terminal (termsafe) and scrubbed of the secrets the caller
// names (redact): a receiver may log its own credentials.
//
// What it does not cover: a bug the receiver never logs, a log line split
// over two lines by interleaved output (two stacks written at once may be
// counted as one, or their frames as other output), and lines above
// Options.MaxLine bytes, which are matched and quoted by their first
// MaxLine bytes only.
package logscan

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"github.com/fencecheck/fencecheck/internal/termsafe"
)

// Pattern is one sign of a bug: a name for people, the expression the
// line that starts it matches, and what makes a hit a finding rather than
// a warning. A crash signature spans lines (a stack's frames): Cont,
// Message and Chain say which lines belong to a hit, so that a stack is
// counted once and the runtime's own message is quoted with it.
type Pattern struct {
	// Name is what people call one hit; "s" makes several: "Python
	// traceback".
	Name string
	Re   *regexp.Regexp
	// Runtime names the runtime whose crash signature it is ("Go",
	// "Python", …); empty for a user's pattern.
	Runtime string
	// Always makes every hit a finding; FatalIf the hits whose line it
	// matches (Java's thread "main"); OnExit a hit the process exited on
	// its own right after (Options.Exited). Any other hit is a warning.
	Always  bool
	FatalIf *regexp.Regexp
	OnExit  bool
	// Next, when set, must match the line after the one Re matched for
	// it to be a hit (node's "Error: …" followed by "    at …").
	Next *regexp.Regexp
	// Cont matches the lines that continue a hit (its stack): they are
	// part of it, never a hit of their own.
	Cont *regexp.Regexp
	// Message matches the line among or after Cont's that is the hit's
	// message (Python's exception line), quoted with it; MessageWhen,
	// when set, must match the hit's line for a message to be looked for
	// (a Rust panic of the newer format ends in ':' and says its message
	// on the next line). The hit goes on after it while Cont matches.
	Message, MessageWhen *regexp.Regexp
	// Chain matches the last non-blank line before a hit that makes it
	// part of the hit before it, of the same pattern (Python's "During
	// handling of the above exception, another exception occurred:"):
	// one crash, counted once, quoted with its last message.
	Chain *regexp.Regexp
}

// hitsOf names n hits of the pattern named name: "12 Python tracebacks",
// or, of a user's pattern (no runtime), "3 lines matching \"ERROR\"".
func hitsOf(name, runtime string, n int) string {
	switch {
	case runtime == "" && n == 1:
		return fmt.Sprintf("1 line matching %q", name)
	case runtime == "":
		return fmt.Sprintf("%s lines matching %q", thousands(n), name)
	case n == 1:
		return "1 " + name
	}
	return thousands(n) + " " + name + "s"
}

// Compile makes a user's pattern, named by its expression.
func Compile(expr string) (Pattern, error) {
	if expr == "" {
		return Pattern{}, errors.New("empty pattern: it would match every line")
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return Pattern{}, fmt.Errorf("%q: %w", expr, err)
	}
	if re.MatchString("") {
		return Pattern{}, fmt.Errorf("%q matches an empty line, so it would match every line", expr)
	}
	return Pattern{Name: expr, Re: re, Always: true}, nil
}

// Options say what a scan looks for and how much it quotes;
// DefaultOptions gives the defaults.
type Options struct {
	// Patterns are matched against every line, in order; a line starts
	// at most one hit, of the first pattern it matches, and a line that
	// continues a hit (Pattern.Cont) starts none.
	Patterns []Pattern
	// Before and After are the lines of context quoted around a hit.
	// A hit within the context of the last quoted one extends it, so a
	// race report of many lines is one excerpt.
	Before, After int
	// MaxExcerpts bounds the excerpts quoted; MaxExcerptLines the lines
	// of one excerpt. The hits beyond them are counted, not quoted.
	MaxExcerpts, MaxExcerptLines int
	// MaxLine is the longest line matched and quoted, in bytes; the rest
	// of a longer line is skipped.
	MaxLine int
	// Own says which lines are not the receiver's but the caller's own
	// markers (fencecheck's start and exit lines, which quote the
	// receiver's command line): they are quoted as context but never
	// matched.
	Own func(line string) bool
	// Exited says which of the Own lines says the process exited on its
	// own: a hit of an OnExit pattern right before it (with at most
	// exitSlack lines of other output between) is a finding, since it
	// ended the process.
	Exited func(line string) bool
	// Secrets are replaced by redact.Mask in every quoted line.
	Secrets []string
}

// exitSlack is how many non-blank lines may come between the end of a
// crash's stack and the process's exit for the exit to be the crash's:
// `go run` prints "exit status 2", a wrapper script a line of its own.
const exitSlack = 3

// DefaultOptions scans for the built-in crash signatures and quotes up to
// five excerpts of up to forty lines, enough for a whole race report of
// the race detector (two stacks).
func DefaultOptions() Options {
	return Options{Patterns: Builtin(), Before: 2, After: 12, MaxExcerpts: 5, MaxExcerptLines: 40, MaxLine: 4096}
}

// Line is a quoted line and its number, from 1.
type Line struct {
	N    int    `json:"n"`
	Text string `json:"text"`
}

// Excerpt is a quoted part of the log around one hit or more: Pattern and
// At are those of its first hit.
type Excerpt struct {
	Pattern string `json:"pattern"`
	At      int    `json:"line"`
	Lines   []Line `json:"lines"`
}

// Count is how many hits one pattern had.
type Count struct {
	Pattern string `json:"pattern"`
	// Runtime is the pattern's (Pattern.Runtime); empty for a user's.
	Runtime string `json:"runtime,omitempty"`
	// Hits are its hits: lines it matched, a stack counted once.
	Hits int `json:"hits"`
	// Findings are the hits that fail the run; the rest are warnings.
	Findings int `json:"findings"`
	// First is the number of the first line it matched, and Example
	// that hit's line with its message, terminal-safe and scrubbed.
	First   int    `json:"first_line"`
	Example string `json:"example,omitempty"`
}

// Report is what a scan found.
type Report struct {
	// File is the log scanned (ScanFile).
	File string `json:"file,omitempty"`
	// Lines is how many lines were read.
	Lines int `json:"lines"`
	// Runtimes are those whose crash signatures were looked for, and
	// UserPatterns the number of the user's own patterns.
	Runtimes     []string `json:"runtimes,omitempty"`
	UserPatterns int      `json:"user_patterns,omitempty"`
	// Hits is every hit, Findings those that fail the run; Counts says
	// how many per pattern, in the order of Options.Patterns, patterns
	// without a hit left out.
	Hits     int     `json:"hits"`
	Findings int     `json:"findings"`
	Counts   []Count `json:"counts,omitempty"`
	// Excerpts are the quoted hits with their context; Unquoted counts
	// the hits beyond the quoting bounds.
	Excerpts []Excerpt `json:"excerpts,omitempty"`
	Unquoted int       `json:"unquoted_hits,omitempty"`
	// Executable is what the caller learnt of the program that wrote the
	// log (whether it could report a data race); nil when it knows
	// nothing of it.
	Executable *Executable `json:"executable,omitempty"`
}

// Found reports whether a pattern matched: a finding or a warning.
func (r Report) Found() bool { return r.Hits > 0 }

// Failed reports whether a hit is a finding: the run fails.
func (r Report) Failed() bool { return r.Findings > 0 }

// Summary says what was found in one line, e.g. "3 Go data races
// (finding), first at line 12: WARNING: DATA RACE".
func (r Report) Summary() string {
	parts := make([]string, len(r.Counts))
	for i, c := range r.Counts {
		parts[i] = c.String()
	}
	return strings.Join(parts, "; ")
}

// String says what a count found: how many, finding or warning, and the
// first example.
func (c Count) String() string {
	s := c.Brief()
	if c.Example != "" {
		s += ": " + c.Example
	}
	return s
}

// Brief says what a count found without its example: how many, finding
// or warning, and the first line.
func (c Count) Brief() string {
	kind := "warning"
	switch {
	case c.Findings == c.Hits:
		kind = "finding"
	case c.Findings > 0:
		kind = fmt.Sprintf("%s, %s", plural(c.Findings, "finding"), plural(c.Hits-c.Findings, "warning"))
	}
	return fmt.Sprintf("%s (%s), first at line %d", termsafe.String(hitsOf(c.Pattern, c.Runtime, c.Hits)), kind, c.First)
}

// plural counts things in words: "1 finding", "2 warnings".
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return thousands(n) + " " + thing + "s"
}

// ScanFile scans the file at path.
func ScanFile(path string, o Options) (Report, error) {
	f, err := os.Open(path)
	if err != nil {
		return Report{File: path}, fmt.Errorf("read the receiver's log: %w", err)
	}
	defer f.Close()
	rep, err := Scan(f, o)
	rep.File = path
	if err != nil {
		return rep, fmt.Errorf("read the receiver's log %s: %w", path, err)
	}
	return rep, nil
}

// Scan reads r to its end and reports the hits of o.Patterns.
// On a read error it returns what it found until then with the error.
func Scan(r io.Reader, o Options) (Report, error) {
	s := newScanner(o)
	br := bufio.NewReaderSize(r, 64*1024)
	for {
		line, read, err := readLine(br, o.MaxLine)
		if read > 0 {
			s.line(line)
		}
		if err != nil {
			s.end()
			if err == io.EOF {
				err = nil
			}
			return s.rep, err
		}
	}
}

// readLine reads one line without its end, keeping at most max bytes of
// it (max <= 0: all of it) and skipping the rest, and says how many bytes
// it read. It returns io.EOF with the last line when the input ends
// without a newline.
func readLine(br *bufio.Reader, max int) (string, int, error) {
	var b []byte
	read := 0
	for {
		frag, err := br.ReadSlice('\n')
		read += len(frag)
		if max <= 0 || len(b) < max {
			take := frag
			if max > 0 && len(b)+len(take) > max {
				take = take[:max-len(b)]
			}
			b = append(b, take...)
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err != nil:
			return strings.TrimRight(string(b), "\r\n"), read, err
		}
		return strings.TrimRight(string(b), "\r\n"), read, nil
	}
}
