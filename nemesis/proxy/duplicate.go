package proxy

import (
	"context"
	"fmt"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/nemesis/internal/toxic"
)

// Duplicate delivers a chosen request twice, as a retrying load balancer
// would. The worker gets the first answer; the copy reaches the receiver
// with the same token and value, and its answer is lost. A strict receiver
// rejects the copy; one that accepts equal tokens applies it again.
type Duplicate struct{ fault }

// NewDuplicate returns the duplicate-request toxic with its defaults.
func NewDuplicate() *Duplicate {
	return &Duplicate{fault: fault{Switch: toxic.Switch{FaultName: "duplicate-request", Needs: nemesis.NeedHTTPProxy}, Probability: 0.3}}
}

// Pipe implements Toxic.
func (d *Duplicate) Pipe(ctx context.Context, r *Request, next Forward) (*Response, error) {
	if !d.Chosen(r, r.IsWrite()) {
		return next(ctx, r)
	}
	resp, err := next(ctx, r)
	d.Record(histories.FBegin, fmt.Sprintf("delivering %s a second time", r))
	copyResp, copyErr := next(ctx, r)
	d.Record(histories.FEnd, fmt.Sprintf("the copy of %s was answered %s", r, describe(copyResp, copyErr)))
	return resp, err
}

func describe(resp *Response, err error) string {
	if err != nil {
		return "with an error"
	}
	return fmt.Sprintf("%d", resp.Status)
}
