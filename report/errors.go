package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/internal/termsafe"
)

// maxErrorLines bounds the kinds of error a text summary quotes.
const maxErrorLines = 3

// WriteErrors writes the first error of each kind the target answered
// with, and how often, under a heading such as "errors      " whose width
// indents the lines below it; nothing when there was none. When a run
// proves nothing, these usually say why. The errors are the receiver's
// text, so they are made printable first.
func WriteErrors(w io.Writer, head string, errs histories.ErrorSummary) {
	total := errs.Other
	for _, k := range errs.Kinds {
		total += k.Count
	}
	if total == 0 {
		return
	}
	indent := strings.Repeat(" ", len(head))
	fmt.Fprintf(w, "%s%d operations ended in an error; the first of each kind:\n", head, total)
	for i, k := range errs.Kinds {
		if i == maxErrorLines {
			fmt.Fprintf(w, "%s… and %d more kinds\n", indent, len(errs.Kinds)-maxErrorLines)
			break
		}
		fmt.Fprintf(w, "%s%d× %s: %s\n", indent, k.Count, k.F, termsafe.String(k.Example))
	}
}
