package logscan

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/fencecheck/fencecheck/internal/termsafe"
)

// Executable is what the caller learnt of the program that wrote a log,
// for the claim about data races: only a Go program built with the race
// detector (-race) can report one, so a log without a race report says
// nothing about races unless the program was.
type Executable struct {
	// Path is the program's file.
	Path string `json:"path,omitempty"`
	// Go says it is a Go program, and Race that it was built with -race.
	Go   bool `json:"go"`
	Race bool `json:"race_detector"`
	// Runtime names the runtime of a program that is not Go, when its
	// file name tells ("Python", "Java", "Node"); empty otherwise.
	Runtime string `json:"runtime,omitempty"`
	// Unknown says why the caller could not tell, when it could not.
	Unknown string `json:"unknown,omitempty"`
}

// RaceClaim says what the log can say about data races, given whether it
// shows one (raced); "" for nil. "No data race" is said only of a Go
// program built with -race, and even then means none the race detector
// saw in what the run made the receiver do.
func (e *Executable) RaceClaim(raced bool) string {
	switch {
	case e == nil:
		return ""
	case e.Unknown != "":
		return "data races not detectable: fencecheck could not tell how the receiver was built (" + termsafe.String(e.Unknown) + ")"
	case e.Go && e.Race && raced:
		return "the receiver was built with -race"
	case e.Go && e.Race:
		return "no data race: the receiver was built with -race, and its race detector reported none"
	case e.Go:
		return "data races not detectable: the receiver was not built with -race"
	}
	what := "not a Go program"
	if e.Runtime != "" {
		what = "a " + e.Runtime + " program, not a Go one"
	}
	return fmt.Sprintf("the race claim does not apply: the receiver (%s) is %s", termsafe.String(filepath.Base(e.Path)), what)
}

// Searched names what a scan looked for, e.g. "6,451 lines for Go,
// Python, Java, Node and Rust crash signatures and 1 pattern of yours".
func (r Report) Searched() string {
	var what []string
	if len(r.Runtimes) > 0 {
		what = append(what, listWords(r.Runtimes)+" crash signatures")
	}
	switch r.UserPatterns {
	case 0:
	case 1:
		what = append(what, "1 pattern of yours")
	default:
		what = append(what, fmt.Sprintf("%d patterns of yours", r.UserPatterns))
	}
	if len(what) == 0 {
		what = append(what, "nothing")
	}
	return fmt.Sprintf("%s for %s", lines(r.Lines), strings.Join(what, " and "))
}

// Claim says what was searched and what was found, e.g. "searched 6,451
// lines for Go, Python, Java, Node and Rust crash signatures: 12 Python
// tracebacks (warning), first at line 3: …", with what the log can say
// about data races.
func (r Report) Claim() string { return r.claim(Count.String) }

// BriefClaim is Claim without the examples, for a table's cell.
func (r Report) BriefClaim() string { return r.claim(Count.Brief) }

func (r Report) claim(count func(Count) string) string {
	found := "none found"
	if r.Found() {
		parts := make([]string, len(r.Counts))
		for i, c := range r.Counts {
			parts[i] = count(c)
		}
		found = strings.Join(parts, "; ")
	}
	s := "searched " + r.Searched() + ": " + found
	if rc := r.Executable.RaceClaim(r.raced()); rc != "" {
		s += "; " + rc
	}
	return s
}

// raced says whether the log shows a data race report.
func (r Report) raced() bool {
	for _, c := range r.Counts {
		if c.Pattern == raceName {
			return true
		}
	}
	return false
}

// FindingSummary is the summary of the counts with a finding, e.g. "1 Go
// data race (finding), first at line 4: WARNING: DATA RACE".
func (r Report) FindingSummary() string {
	var parts []string
	for _, c := range r.Counts {
		if c.Findings > 0 {
			parts = append(parts, c.String())
		}
	}
	return strings.Join(parts, "; ")
}

// listWords words a list: "a", "a and b", "a, b and c".
func listWords(w []string) string {
	if len(w) < 2 {
		return strings.Join(w, "")
	}
	return strings.Join(w[:len(w)-1], ", ") + " and " + w[len(w)-1]
}

// thousands writes n with thousands separators: 6,451.
func thousands(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// lines counts lines in words.
func lines(n int) string {
	if n == 1 {
		return "1 line"
	}
	return thousands(n) + " lines"
}
