package models

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/fencecheck/fencecheck/histories"
)

// WriteViolation writes a violation as a short timeline a person can read,
// in the style of the seed's table: step | time | process | event | what
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
		fmt.Fprintf(tw, "%d\t%s\t%d\t%s\t%s\n", i+1, Interval(s.Call, s.Return), s.Process, s.Event, s.Expected)
	}
	return tw.Flush()
}

// Interval renders an operation's interval; an unknown outcome ends at ∞.
func Interval(call, ret int64) string {
	end := "∞"
	if ret != histories.Infinity {
		end = time.Duration(ret).String()
	}
	return time.Duration(call).String() + "–" + end
}
