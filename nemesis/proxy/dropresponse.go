package proxy

import (
	"context"
	"fmt"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/nemesis/internal/toxic"
)

// DropResponse lets the receiver apply a chosen write and then drops its
// answer: the worker's connection closes without a response, so it
// records an unknown outcome for a write that in fact took effect (or was
// in fact rejected). The checker must allow both.
type DropResponse struct{ fault }

// NewDropResponse returns the drop-response toxic with its defaults.
func NewDropResponse() *DropResponse {
	return &DropResponse{fault: fault{Switch: toxic.Switch{FaultName: "drop-response", Needs: nemesis.NeedHTTPProxy}, Probability: 0.2}}
}

// Pipe implements Toxic.
func (d *DropResponse) Pipe(ctx context.Context, r *Request, next Forward) (*Response, error) {
	if !d.Chosen(r, r.IsWrite()) {
		return next(ctx, r)
	}
	resp, err := next(ctx, r)
	if err != nil {
		return nil, err
	}
	d.Record(histories.FBegin, fmt.Sprintf("the receiver answered %d to %s; dropping the answer", resp.Status, r))
	d.Record(histories.FEnd, fmt.Sprintf("the worker's connection for %s closes without an answer", r))
	return nil, errDropped
}
