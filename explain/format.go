package explain

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/fencecheck/fencecheck/histories"
)

// WriteViolation writes a violation as a short timeline a person can read,
// in the style of the article's table: step | time | process | event | what
// the resource should have done.
func WriteViolation(w io.Writer, v Violation) error {
	if _, err := fmt.Fprintf(w, "resource %q: %s\n", v.Resource, v.Summary); err != nil {
		return err
	}
	if len(v.Steps) == 0 {
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "step\ttime\tprocess\tevent\twhat the resource should have done")
	for i, s := range v.Steps {
		who, at := strconv.Itoa(s.Process), Interval(s.Call, s.Return)
		if s.Initial {
			who, at = "-", "before the run" // no process wrote it
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", i+1, at, who, s.Event, s.Expected)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return writeTraces(w, v.Steps)
}

// writeTraces lists the trace id of each step that has one, in full,
// under the table: the id to search the receiver's logs and traces for
// (its request log, a PostgreSQL log's statement comments). Nothing when
// no step has one (a target that carries no trace context).
func writeTraces(w io.Writer, steps []Step) error {
	if !slices.ContainsFunc(steps, func(s Step) bool { return s.Trace != "" }) {
		return nil
	}
	if _, err := io.WriteString(w, "trace ids, to find each operation's requests in the receiver's logs:\n"); err != nil {
		return err
	}
	for i, s := range steps {
		if s.Trace == "" {
			continue
		}
		if _, err := fmt.Fprintf(w, "  step %d  op %d  process %d  trace %s\n", i+1, s.OpID, s.Process, s.Trace); err != nil {
			return err
		}
	}
	return nil
}

// WriteViolations writes every violation of res once, each after a blank
// line: the first cause (Result.First) as its minimal counterexample when
// there is one (heading and table, WriteShrunk), else as its violation,
// then the others as their violations, in the order of res. The token
// issuer's violations come before them all: they void the tokens the
// receiver's violations are judged by.
func WriteViolations(w io.Writer, res *Result, minimal *Shrunk) error {
	if err := WriteIssuer(w, res); err != nil {
		return err
	}
	first := res.First()
	if first < 0 {
		return nil
	}
	if _, err := io.WriteString(w, "\n"); err != nil {
		return err
	}
	shown := res.Violations[first].Resource
	var err error
	if minimal != nil {
		shown = minimal.Resource
		err = WriteShrunk(w, minimal)
	} else {
		err = WriteViolation(w, res.Violations[first])
	}
	for i := range res.Violations {
		if err != nil {
			return err
		}
		if v := res.Violations[i]; v.Resource != shown {
			if _, err = io.WriteString(w, "\n"); err == nil {
				err = WriteViolation(w, v)
			}
		}
	}
	return err
}

// Interval renders an operation's interval; an unknown outcome ends at ∞.
func Interval(call, ret int64) string {
	end := "∞"
	if ret != histories.Infinity {
		end = time.Duration(ret).String()
	}
	return time.Duration(call).String() + "–" + end
}
