package explain

import (
	"fmt"
	"io"
)

// maxIssuerShown bounds the issuer violations written out; the rest are
// counted.
const maxIssuerShown = 10

// WriteIssuer writes the issuer's violations of res under a heading, after
// a blank line, or nothing when there are none.
func WriteIssuer(w io.Writer, res *Result) error {
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
