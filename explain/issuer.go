package explain

import (
	"fmt"
	"io"

	"github.com/fencecheck/fencecheck/check"
)

// issuerReason is the reason of a verdict that the token issuer's
// violations decided: the issuer named first, with its first violation,
// then the receiver's own verdict, reason and all.
func issuerReason(issuer []check.IssuerViolation, receiver check.Verdict, reason string) string {
	first := issuer[0].String()
	if n := len(issuer) - 1; n > 0 {
		first += fmt.Sprintf(" (and %d more issuer violations)", n)
	}
	switch receiver {
	case check.Held:
		return fmt.Sprintf("the token issuer, not the receiver: %s; the receiver's history is linearizable given these tokens", first)
	case check.Violated:
		return fmt.Sprintf("the token issuer, and the receiver too: %s; and %s", first, reason)
	}
	return fmt.Sprintf("the token issuer, not the receiver: %s; the receiver's verdict alone is %s: %s", first, receiver, reason)
}

// maxIssuerShown bounds the issuer violations written out; the rest are
// counted.
const maxIssuerShown = 10

// writeIssuer writes the issuer's violations of res under a heading, after
// a blank line, or nothing when there are none.
func writeIssuer(w io.Writer, res *Result) error {
	if len(res.Issuer) == 0 {
		return nil
	}
	if _, err := fmt.Fprintf(w, "\nthe token issuer broke its invariant (every grant's token above every earlier grant's on its resource):\n"); err != nil {
		return err
	}
	for i, v := range res.Issuer {
		if i == maxIssuerShown {
			_, err := fmt.Fprintf(w, "  ... and %d more\n", len(res.Issuer)-maxIssuerShown)
			return err
		}
		if _, err := fmt.Fprintf(w, "  %s\n", v); err != nil {
			return err
		}
	}
	return nil
}
