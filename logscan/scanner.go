package logscan

import (
	"strings"

	"github.com/fencecheck/fencecheck/internal/redact"
	"github.com/fencecheck/fencecheck/internal/termsafe"
)

// maxExample bounds a count's example, in bytes.
const maxExample = 300

// scanner is the state of one Scan: the lines before the current one, the
// excerpt still taking lines after its last hit, and the hit whose stack
// is being read.
type scanner struct {
	o      Options
	rep    Report
	counts map[int]int // pattern index → index in rep.Counts
	before []Line      // the last o.Before lines, oldest first
	open   int         // index in rep.Excerpts of the excerpt taking lines; -1: none
	after  int         // how many more context lines it takes
	quoted int         // the number of the last line quoted

	pending *pending // a line that is a hit if the next one matches its pattern's Next
	block   *hit     // the hit whose continuation lines are being read
	last    *hit     // the hit whose block ended last, while an exit may still be its
	since   int      // non-blank receiver lines since last's block ended
	prev    string   // the last non-blank receiver line
}

// pending is a line that matched a pattern with Next.
type pending struct {
	p  int
	ln Line
}

// hit is one hit being read: its pattern, its count, whether it is a
// finding, and whether its message is still looked for.
type hit struct {
	p       int
	count   int
	first   bool // the first hit of its count: its example
	finding bool
	looking bool
}

func newScanner(o Options) *scanner {
	s := &scanner{o: o, counts: make(map[int]int), open: -1}
	seen := map[string]bool{}
	for _, p := range o.Patterns {
		switch {
		case p.Runtime == "":
			s.rep.UserPatterns++
		case !seen[p.Runtime]:
			seen[p.Runtime] = true
			s.rep.Runtimes = append(s.rep.Runtimes, p.Runtime)
		}
	}
	return s
}

func (s *scanner) line(text string) {
	s.rep.Lines++
	ln := Line{N: s.rep.Lines, Text: text}
	defer s.remember(ln)
	if s.o.Own != nil && s.o.Own(text) {
		s.pending = nil
		s.endBlock()
		if s.o.Exited != nil && s.o.Exited(text) {
			s.exited()
		}
		s.last = nil // an exit, or a start: what came before is another process's
		s.context(ln)
		return
	}
	if pd := s.pending; pd != nil {
		s.pending = nil
		if s.o.Patterns[pd.p].Next.MatchString(text) {
			s.hit(pd.p, pd.ln)
		}
	}
	if b := s.block; b != nil {
		p := &s.o.Patterns[b.p]
		cont := p.Cont != nil && p.Cont.MatchString(text)
		if b.looking && strings.TrimSpace(text) != "" && p.Message.MatchString(text) {
			s.message(b, text)
			cont = true // the message is part of the hit; what follows may be too
		}
		if cont {
			// A user's pattern is a finding wherever its line is.
			if i, ok := s.matchUser(text); ok {
				s.hit(i, ln)
				return
			}
			s.context(ln)
			return
		}
		s.endBlock()
	}
	if i, ok := s.match(text); ok {
		if s.o.Patterns[i].Next != nil {
			s.pending = &pending{p: i, ln: ln}
			s.context(ln)
			return
		}
		s.hit(i, ln)
		return
	}
	if s.last != nil && strings.TrimSpace(text) != "" {
		if s.since++; s.since > exitSlack {
			s.last = nil
		}
	}
	s.context(ln)
}

// remember keeps ln among the lines before the next one.
func (s *scanner) remember(ln Line) {
	if strings.TrimSpace(ln.Text) != "" && (s.o.Own == nil || !s.o.Own(ln.Text)) {
		s.prev = ln.Text
	}
	if s.o.Before > 0 {
		s.before = append(s.before, ln)
		if len(s.before) > s.o.Before {
			s.before = s.before[1:]
		}
	}
}

// end ends the scan: a pending line is no hit, and the hit being read
// ends with the log (a process that exited with nothing written after
// its crash and no exit line is not known to have exited).
func (s *scanner) end() {
	s.pending = nil
	s.endBlock()
}

// match returns the first pattern text matches.
func (s *scanner) match(text string) (int, bool) {
	for i, p := range s.o.Patterns {
		if p.Re.MatchString(text) {
			return i, true
		}
	}
	return 0, false
}

// matchUser returns the first of the user's patterns text matches.
func (s *scanner) matchUser(text string) (int, bool) {
	for i, p := range s.o.Patterns {
		if p.Runtime == "" && p.Re.MatchString(text) {
			return i, true
		}
	}
	return 0, false
}

// endBlock ends the hit being read: an exit soon after may still be its.
func (s *scanner) endBlock() {
	if s.block != nil {
		s.last, s.since, s.block = s.block, 0, nil
	}
}

// exited makes the last hit a finding if its pattern says a crash that
// ended the process is one.
func (s *scanner) exited() {
	h := s.last
	if h == nil || h.finding || !s.o.Patterns[h.p].OnExit {
		return
	}
	h.finding = true
	s.rep.Findings++
	s.rep.Counts[h.count].Findings++
}

// hit counts a hit at ln, of pattern i, or continues the hit before it
// when the pattern's Chain says so, and quotes it.
func (s *scanner) hit(i int, ln Line) {
	p := &s.o.Patterns[i]
	looking := p.Message != nil && (p.MessageWhen == nil || p.MessageWhen.MatchString(ln.Text))
	if l := s.last; l != nil && l.p == i && p.Chain != nil && p.Chain.MatchString(s.prev) {
		l.looking = looking
		s.block, s.last = l, nil
		s.quoteHit(p.Name, ln, false)
		return
	}
	s.rep.Hits++
	c, ok := s.counts[i]
	if !ok {
		c = len(s.rep.Counts)
		s.counts[i] = c
		s.rep.Counts = append(s.rep.Counts, Count{Pattern: p.Name, Runtime: p.Runtime, First: ln.N, Example: s.example(ln.Text)})
	}
	s.rep.Counts[c].Hits++
	h := &hit{p: i, count: c, first: !ok, looking: looking,
		finding: p.Always || p.FatalIf != nil && p.FatalIf.MatchString(ln.Text)}
	if h.finding {
		s.rep.Findings++
		s.rep.Counts[c].Findings++
	}
	s.block, s.last = h, nil
	s.quoteHit(p.Name, ln, true)
}

// message records a hit's message: the first hit's is its count's
// example, after its line.
func (s *scanner) message(h *hit, text string) {
	h.looking = false
	if !h.first {
		return
	}
	c := &s.rep.Counts[h.count]
	head := c.Example
	if i := strings.Index(head, " … "); i >= 0 {
		head = head[:i] // a chained crash: its last message
	}
	c.Example = s.example(head + " … " + text)
}

// example is text as a count quotes it: scrubbed, terminal-safe, bounded.
func (s *scanner) example(text string) string {
	text = termsafe.String(redact.Scrub(strings.TrimSpace(text), s.o.Secrets))
	if len(text) > maxExample {
		cut := maxExample
		for cut > 0 && !utf8Start(text[cut]) {
			cut--
		}
		text = text[:cut] + "…"
	}
	return text
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// context quotes ln as context of the open excerpt while it takes some.
func (s *scanner) context(ln Line) {
	if s.open >= 0 && s.after > 0 && ln.N > s.quoted {
		s.quote(ln)
		s.after--
	}
	if s.after <= 0 {
		s.open = -1
	}
}

// quoteHit quotes a hit's line: in the open excerpt while it has room,
// else in a new one with the lines before it not yet quoted, or, beyond
// the bounds, not at all (counted as unquoted when counted is set: a
// chained part of a hit counted already is not another hit).
func (s *scanner) quoteHit(pattern string, ln Line, counted bool) {
	if s.open >= 0 && len(s.rep.Excerpts[s.open].Lines) < s.o.MaxExcerptLines {
		if ln.N > s.quoted {
			s.quote(ln)
		}
		s.after = s.o.After
		return
	}
	s.open, s.after = -1, 0
	if len(s.rep.Excerpts) >= s.o.MaxExcerpts || s.o.MaxExcerptLines < 1 {
		if counted {
			s.rep.Unquoted++
		}
		return
	}
	s.rep.Excerpts = append(s.rep.Excerpts, Excerpt{Pattern: pattern, At: ln.N})
	s.open = len(s.rep.Excerpts) - 1
	for _, b := range s.before {
		if b.N > s.quoted && b.N < ln.N && len(s.rep.Excerpts[s.open].Lines) < s.o.MaxExcerptLines-1 {
			s.quote(b)
		}
	}
	if ln.N > s.quoted {
		s.quote(ln)
	}
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
