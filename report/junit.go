package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"time"

	"github.com/fencecheck/fencecheck/internal/files"
)

// Suite is a JUnit test suite: one per command that judges (a run, a
// check, a verify battery).
type Suite struct {
	Name  string
	Cases []Case
	// Properties are name/value pairs CI systems show beside the suite:
	// the target, the seed, the run directory.
	Properties []Fact
	_          struct{}
}

// Case is one checked invariant or one scenario.
type Case struct {
	Name      string
	Classname string
	Time      time.Duration
	// Failure is set when the invariant was violated: a one-line
	// message and the explanation (the timeline table) as text.
	Failure *Failure
	// Error is set when the check could not decide (inconclusive): a
	// gate must not pass on it either.
	Error *Failure
	// Skipped says why the case was not run.
	Skipped string
	_       struct{}
}

// Failure is the message and text of a failed or erroring case.
type Failure struct {
	Message string
	Type    string
	Text    string
}

type xmlSuites struct {
	XMLName  xml.Name   `xml:"testsuites"`
	Tests    int        `xml:"tests,attr"`
	Failures int        `xml:"failures,attr"`
	Errors   int        `xml:"errors,attr"`
	Skipped  int        `xml:"skipped,attr"`
	Suites   []xmlSuite `xml:"testsuite"`
}

type xmlSuite struct {
	Name       string        `xml:"name,attr"`
	Tests      int           `xml:"tests,attr"`
	Failures   int           `xml:"failures,attr"`
	Errors     int           `xml:"errors,attr"`
	Skipped    int           `xml:"skipped,attr"`
	Time       string        `xml:"time,attr"`
	Properties []xmlProperty `xml:"properties>property,omitempty"`
	Cases      []xmlCase     `xml:"testcase"`
}

type xmlProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type xmlCase struct {
	Name      string      `xml:"name,attr"`
	Classname string      `xml:"classname,attr"`
	Time      string      `xml:"time,attr"`
	Failure   *xmlFailure `xml:"failure,omitempty"`
	Error     *xmlFailure `xml:"error,omitempty"`
	Skipped   *xmlSkipped `xml:"skipped,omitempty"`
}

type xmlFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",cdata"`
}

type xmlSkipped struct {
	Message string `xml:"message,attr"`
}

// WriteJUnit writes suites as JUnit XML, the format CI systems (GitHub
// Actions reporters, GitLab, Jenkins) read: failures for violations,
// errors for inconclusive checks.
func WriteJUnit(w io.Writer, suites ...Suite) error {
	var doc xmlSuites
	for _, s := range suites {
		xs := xmlSuite{Name: s.Name, Tests: len(s.Cases)}
		var total time.Duration
		for _, p := range s.Properties {
			xs.Properties = append(xs.Properties, xmlProperty(p))
		}
		for _, c := range s.Cases {
			xc := xmlCase{Name: c.Name, Classname: c.Classname, Time: secs(c.Time)}
			if xc.Classname == "" {
				xc.Classname = s.Name
			}
			if c.Failure != nil {
				xc.Failure = &xmlFailure{c.Failure.Message, c.Failure.Type, c.Failure.Text}
				xs.Failures++
			}
			if c.Error != nil {
				xc.Error = &xmlFailure{c.Error.Message, c.Error.Type, c.Error.Text}
				xs.Errors++
			}
			if c.Skipped != "" {
				xc.Skipped = &xmlSkipped{c.Skipped}
				xs.Skipped++
			}
			total += c.Time
			xs.Cases = append(xs.Cases, xc)
		}
		xs.Time = secs(total)
		doc.Tests += xs.Tests
		doc.Failures += xs.Failures
		doc.Errors += xs.Errors
		doc.Skipped += xs.Skipped
		doc.Suites = append(doc.Suites, xs)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("encode junit: %w", err)
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// WriteJUnitFile writes suites to the file at path.
func WriteJUnitFile(path string, suites ...Suite) error {
	return files.Write(path, "junit report", func(w io.Writer) error { return WriteJUnit(w, suites...) })
}

func secs(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }
