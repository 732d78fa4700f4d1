package explain

import (
	"fmt"
	"io"
	"time"

	"github.com/fencecheck/fencecheck/internal/termsafe"
)

// WriteShrunk writes a minimal counterexample for people: a heading that
// says how far it was shrunk, then its timeline table (WriteViolation).
func WriteShrunk(w io.Writer, s *Shrunk) error {
	state := "1-minimal"
	if !s.Minimal {
		state = "the time bound stopped the search early"
	}
	if s.Adopted {
		state += ", told as its own operations show it"
	}
	if _, err := fmt.Fprintf(w, "minimal counterexample: %d of %d operations on %s (%s, %d checks, %v)\n",
		len(s.Ops), s.From, termsafe.String(s.Resource), state, s.Checks, s.Elapsed.Round(time.Millisecond)); err != nil {
		return err
	}
	return WriteViolation(w, s.Violation)
}
