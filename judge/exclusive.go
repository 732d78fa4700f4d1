package judge

import (
	"fmt"
	"time"

	"github.com/fencecheck/fencecheck/internal/termsafe"
)

// ExclusiveViolation is an accepted write whose lease had already ended
// on the issuer, or been reassigned, when it was sent: allowed by
// fencing, a violation of the stronger requirement that no old owner
// writes once its ownership is over.
type ExclusiveViolation struct {
	OpID     int    `json:"op"`
	Process  int    `json:"process"`
	Resource string `json:"resource"`
	Token    uint64 `json:"token"`
	// NewerToken was granted on the resource before the write was sent;
	// zero when none was.
	NewerToken uint64 `json:"newer_token,omitempty"`
	// LeaseEnded is when the write's lease ended, by the issuer's event
	// (LeaseEnd: expire, revoke or release), if that was before the
	// write was sent; zero otherwise.
	LeaseEnded int64  `json:"lease_ended_ns,omitempty"`
	LeaseEnd   string `json:"lease_end,omitempty"`
	Call       int64  `json:"call_ns"`
}

// String words the violation: "process 3 wrote token 5 to r at 1.2s,
// after its lease had expired (at 1.1s) and token 7 had been granted".
func (x ExclusiveViolation) String() string {
	var after []string
	if x.LeaseEnded > 0 {
		after = append(after, fmt.Sprintf("its lease had %s (at %v)", endWords[x.LeaseEnd], time.Duration(x.LeaseEnded)))
	}
	if x.NewerToken > 0 {
		after = append(after, fmt.Sprintf("token %d had been granted", x.NewerToken))
	}
	what := after[0]
	if len(after) == 2 {
		what += " and " + after[1]
	}
	return fmt.Sprintf("process %d wrote token %d to %s at %v, after %s", x.Process, x.Token, termsafe.String(x.Resource), time.Duration(x.Call), what)
}

// endWords word a lease event that ends a lease.
var endWords = map[string]string{"expire": "expired", "revoke": "been revoked", "release": "been released"}

// ended returns the write's lease, the latest grant of its token before
// the write was sent at call, when the issuer had ended it by then.
//
// A lease event is recorded once the lease service knows the lease is
// over on the issuer (lease.Local at the instant, lease.Polled once the
// store confirmed it, etcd once the revoke returned or the keepalive
// ended), never before: an event's time is at or after the true end, so
// a write sent after it was certainly sent without a lease. A write sent
// before the event, while its lease was in fact already over on the
// issuer, is missed: the check sees the issuer's end only as late as the
// run learned of it.
func ended(grants []grant, token uint64, call int64) (grant, bool) {
	for i := len(grants) - 1; i >= 0; i-- {
		g := grants[i]
		if g.time > call || g.token != token {
			continue
		}
		return g, g.end > 0 && g.end < call
	}
	return grant{}, false
}
