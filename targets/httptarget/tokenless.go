package httptarget

import (
	"context"
	"errors"
	"fmt"

	"github.com/fencecheck/fencecheck/histories"
)

// errTokenInBody is why an adapter whose token travels in the path or
// the JSON body cannot write without one.
var errTokenInBody = errors.New("the adapter writes the token into its path or JSON body template; " +
	"fencecheck cannot leave it out of a template")

// CheckTokenless implements targets.TokenlessWriter: a token carried in
// a header or the query (token_in, or a query or header template) can be
// left out; one in the path or body template cannot.
func (t *Target) CheckTokenless() error {
	if w := t.adapter.Write; carriesToken(w.Path) || carriesToken(w.JSONBody) {
		return fmt.Errorf("http target %s: %w", t.name, errTokenInBody)
	}
	return nil
}

// WriteWithoutToken implements targets.TokenlessWriter: the adapter's
// write request without the token header (or query parameter, or the
// query and header templates that carry it), its
// answer mapped as every write's is (2xx accepted, the stale statuses
// rejected, anything else an unknown outcome).
//
// The reference receiver (targets/httptarget/receiver, also in its
// --bug unfenced mode) answers such a PUT with 400 "missing Fencing-Token
// header": a receiver that fences refuses ownership it cannot check. 400
// is not an answer the protocol maps, so every such write is an unknown
// outcome, and a run of a strategy that does not fence against the
// reference receiver has no acknowledged write: inconclusive. Receivers
// that ignore the header take the write.
//
// The request carries no fault-proxy description either (Options.Describe
// is not called): the proxy's toxics, which pick writes by their token,
// cannot target it.
func (t *Target) WriteWithoutToken(ctx context.Context, resource, value string) (histories.Outcome, error) {
	if err := t.CheckTokenless(); err != nil {
		return 0, err
	}
	out, err := t.send(ctx, op{resource: resource, value: value, tokenless: true}, "write to "+resource+" without a token")
	return out, t.scrub(err)
}
