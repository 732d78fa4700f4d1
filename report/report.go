package report

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/fencecheck/fencecheck/check"
	"github.com/fencecheck/fencecheck/explain"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/runstore"
)

// Input describes a checked history for the report. Callers fill what
// they know; the report leaves out what is empty.
type Input struct {
	Title   string // what was tested: a target spec or a history file
	Verdict judge.Verdict
	Reason  string // one sentence that explains the verdict
	Command string // the command that reproduces it
	Started time.Time
	Elapsed time.Duration

	History *histories.History
	Check   explain.Result
	Options check.Options
	Minimal *explain.Shrunk // nil unless a violation was shrunk
	// Kinds are the judgement's findings (judge.Report.Findings): the
	// violations are shown by kind, root causes first, the first example
	// of each in full and the others named; nil shows each violation.
	Kinds []judge.Finding

	Exercised  []Fact   // what the run exercised, for example the coverage
	NotCovered []string // what it did not
	Findings   []string // further violations, such as --require exclusive
	Config     []Fact
	// Files lists other files of the run directory to link to.
	Files []string
	// ops are History's operations in the full form, which the report
	// reads one by one (operations).
	ops []histories.Operation
	_   struct{}
}

// operations returns the operations of the history in the full form,
// made once.
func (in *Input) operations() []histories.Operation {
	if in.ops == nil && in.History != nil {
		in.ops = in.History.Expand(nil)
	}
	return in.ops
}

// Fact is one row of a two-column table.
type Fact struct {
	Name, Value string
}

// Limits keep reports small and quick for big histories; DefaultLimits
// gives the defaults.
type Limits struct {
	// PlotPoints bounds the operations drawn in the latency plot; the
	// rest are sampled evenly.
	PlotPoints int
	// TimelineOps bounds the operations in timeline.html.
	TimelineOps int
	// TableRows bounds the rows of the per-resource table.
	TableRows int
	// CheckTimeout bounds porcupine's verbose re-check behind each
	// visualization; 0: no limit.
	CheckTimeout time.Duration
	_            struct{}
}

// DefaultLimits draw 2500 operations in the latency plot, 1000 in the
// timeline and 50 rows in the table, and give each visualization's
// re-check 10 s.
func DefaultLimits() Limits {
	return Limits{PlotPoints: 2500, TimelineOps: 1000, TableRows: 50, CheckTimeout: 10 * time.Second}
}

// validate names each limit that cannot be.
func (l *Limits) validate() error {
	var errs []error
	for _, f := range []struct {
		name string
		v    int
	}{{"PlotPoints", l.PlotPoints}, {"TimelineOps", l.TimelineOps}, {"TableRows", l.TableRows}} {
		if f.v < 1 {
			errs = append(errs, fmt.Errorf("%s: %d, want at least 1", f.name, f.v))
		}
	}
	if l.CheckTimeout < 0 {
		errs = append(errs, fmt.Errorf("CheckTimeout: negative"))
	}
	return errors.Join(errs...)
}

// Written says what Write produced and how long it took.
type Written struct {
	Files   []string      // paths written
	Elapsed time.Duration // for the whole report
}

// Write writes report.html and timeline.html into dir, and minimal.html
// and minimal.jsonl when in has a minimal counterexample.
func Write(dir string, in Input, lim Limits) (Written, error) {
	start := time.Now()
	if err := lim.validate(); err != nil {
		return Written{}, fmt.Errorf("report limits: %w", err)
	}
	if in.History == nil {
		in.History = &histories.History{}
	}
	var out Written
	put := func(name string, write func(*bytes.Buffer) error) error {
		var buf bytes.Buffer
		if err := write(&buf); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		out.Files = append(out.Files, path)
		return nil
	}
	var note string
	if err := put(runstore.Timeline, func(b *bytes.Buffer) (err error) {
		note, err = writeTimeline(b, &in, lim)
		return err
	}); err != nil {
		return out, err
	}
	if in.Minimal != nil {
		if err := put(runstore.Minimal, func(b *bytes.Buffer) error { return writeMinimal(b, &in, lim) }); err != nil {
			return out, err
		}
		if err := put(runstore.MinimalHistory, func(b *bytes.Buffer) error { return histories.Write(b, in.Minimal.Events()) }); err != nil {
			return out, err
		}
	}
	if err := put(runstore.Report, func(b *bytes.Buffer) error {
		p, err := newPage(&in, lim, note)
		if err != nil {
			return err
		}
		return pageTemplate.Execute(b, p)
	}); err != nil {
		return out, err
	}
	out.Elapsed = time.Since(start)
	return out, nil
}
