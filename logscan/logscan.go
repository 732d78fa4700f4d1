// Package logscan reads a receiver's log for the signs of a bug that the
// history cannot show: a panic, a fatal runtime error, a data race the
// race detector reported, or a line the user named, as Jepsen's
// log-file-pattern checker does. A receiver that answered every request
// correctly while the race detector reported a race on each of them is
// not correct; its answers were lucky.
//
// Scan streams the log line by line, so that a large log costs one line
// and a few lines of context in memory, and quotes a bounded number of
// hits with their context. Every hit is counted, quoted or not, so that
// a hit beyond the quoting bound is never lost. The quoted lines are made
// safe for a terminal (termsafe) and scrubbed of the secrets the caller
// names (redact): a receiver may log its own credentials.
//
// What it does not cover: a bug the receiver never logs, a log line split
// over two lines by interleaved output, and lines above Options.MaxLine
// bytes, which are matched and quoted by their first MaxLine bytes only.
package logscan

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"github.com/fencecheck/fencecheck/internal/redact"
	"github.com/fencecheck/fencecheck/internal/termsafe"
)

// Pattern is one sign of a bug: a name for people and the expression a
// line is matched against.
type Pattern struct {
	Name string
	Re   *regexp.Regexp
}

// Builtin returns the patterns every log is scanned for: a Go panic (also
// one net/http recovered in a handler), a fatal runtime error (a
// concurrent map write, a deadlock, out of memory) and a data race the
// race detector reported.
func Builtin() []Pattern {
	return []Pattern{
		{Name: "panic", Re: regexp.MustCompile(`panic:|http: panic serving`)},
		{Name: "fatal error", Re: regexp.MustCompile(`fatal error:`)},
		{Name: "DATA RACE", Re: regexp.MustCompile(`DATA RACE`)},
	}
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
	return Pattern{Name: expr, Re: re}, nil
}

// Options say what a scan looks for and how much it quotes;
// DefaultOptions gives the defaults.
type Options struct {
	// Patterns are matched against every line, in order; a line is one
	// hit, of the first pattern it matches.
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
	// Secrets are replaced by redact.Mask in every quoted line.
	Secrets []string
}

// DefaultOptions scans for the built-in patterns and quotes up to five
// excerpts of up to forty lines, enough for a whole race report of the
// race detector (two stacks).
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

// Count is how many lines matched one pattern.
type Count struct {
	Pattern string `json:"pattern"`
	Hits    int    `json:"hits"`
	// First is the number of the first line it matched.
	First int `json:"first_line"`
}

// Report is what a scan found.
type Report struct {
	// File is the log scanned (ScanFile).
	File string `json:"file,omitempty"`
	// Lines is how many lines were read.
	Lines int `json:"lines"`
	// Hits is every matching line; Counts says how many per pattern,
	// in the order of Options.Patterns, patterns without a hit left out.
	Hits   int     `json:"hits"`
	Counts []Count `json:"counts,omitempty"`
	// Excerpts are the quoted hits with their context; Unquoted counts
	// the hits beyond the quoting bounds.
	Excerpts []Excerpt `json:"excerpts,omitempty"`
	Unquoted int       `json:"unquoted_hits,omitempty"`
}

// Found reports whether a pattern matched.
func (r Report) Found() bool { return r.Hits > 0 }

// Summary says what was found in one line, e.g. "DATA RACE 3, panic 1".
func (r Report) Summary() string {
	parts := make([]string, len(r.Counts))
	for i, c := range r.Counts {
		parts[i] = fmt.Sprintf("%s %d (first at line %d)", termsafe.String(c.Pattern), c.Hits, c.First)
	}
	return strings.Join(parts, ", ")
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

// Scan reads r to its end and reports the lines that match o.Patterns.
// On a read error it returns what it found until then with the error.
func Scan(r io.Reader, o Options) (Report, error) {
	s := newScanner(o)
	br := bufio.NewReaderSize(r, 64*1024)
	for {
		line, read, err := readLine(br, o.MaxLine)
		if read > 0 {
			s.line(line)
		}
		if err == io.EOF {
			return s.rep, nil
		}
		if err != nil {
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

// scanner is the state of one Scan: the lines before the current one, and
// the excerpt still taking lines after its last hit.
type scanner struct {
	o      Options
	rep    Report
	counts map[string]int // index in rep.Counts
	before []Line         // the last o.Before lines, oldest first
	open   int            // index in rep.Excerpts of the excerpt taking lines; -1: none
	after  int            // how many more context lines it takes
	quoted int            // the number of the last line quoted
}

func newScanner(o Options) *scanner {
	return &scanner{o: o, counts: make(map[string]int), open: -1}
}

func (s *scanner) line(text string) {
	s.rep.Lines++
	ln := Line{N: s.rep.Lines, Text: text}
	if p, ok := s.match(text); ok {
		s.hit(p, ln)
	} else if s.open >= 0 && s.after > 0 {
		s.quote(ln)
		s.after--
	}
	if s.after <= 0 {
		s.open = -1
	}
	if s.o.Before > 0 {
		s.before = append(s.before, ln)
		if len(s.before) > s.o.Before {
			s.before = s.before[1:]
		}
	}
}

// match returns the first pattern text matches, unless it is the
// caller's own line.
func (s *scanner) match(text string) (string, bool) {
	if s.o.Own != nil && s.o.Own(text) {
		return "", false
	}
	for _, p := range s.o.Patterns {
		if p.Re.MatchString(text) {
			return p.Name, true
		}
	}
	return "", false
}

// hit counts a matching line and quotes it: in the open excerpt while it
// has room, else in a new one with the lines before it not yet quoted,
// or, beyond the bounds, not at all.
func (s *scanner) hit(pattern string, ln Line) {
	s.rep.Hits++
	if i, ok := s.counts[pattern]; ok {
		s.rep.Counts[i].Hits++
	} else {
		s.counts[pattern] = len(s.rep.Counts)
		s.rep.Counts = append(s.rep.Counts, Count{Pattern: pattern, Hits: 1, First: ln.N})
	}
	if s.open >= 0 && len(s.rep.Excerpts[s.open].Lines) < s.o.MaxExcerptLines {
		s.quote(ln)
		s.after = s.o.After
		return
	}
	s.open, s.after = -1, 0
	if len(s.rep.Excerpts) >= s.o.MaxExcerpts || s.o.MaxExcerptLines < 1 {
		s.rep.Unquoted++
		return
	}
	s.rep.Excerpts = append(s.rep.Excerpts, Excerpt{Pattern: pattern, At: ln.N})
	s.open = len(s.rep.Excerpts) - 1
	for _, b := range s.before {
		if b.N > s.quoted && len(s.rep.Excerpts[s.open].Lines) < s.o.MaxExcerptLines-1 {
			s.quote(b)
		}
	}
	s.quote(ln)
	s.after = s.o.After
}

// quote adds ln, made safe, to the open excerpt if it has room; a full
// excerpt takes no more context.
func (s *scanner) quote(ln Line) {
	ex := &s.rep.Excerpts[s.open]
	if len(ex.Lines) >= s.o.MaxExcerptLines {
		s.after = 0
		return
	}
	ln.Text = termsafe.String(redact.Scrub(ln.Text, s.o.Secrets))
	ex.Lines = append(ex.Lines, ln)
	s.quoted = ln.N
}
