package histories

import (
	"fmt"
	"strconv"
	"strings"
)

// Evidence says whether a history gives a verdict of "held" something to
// stand on. A checker finds no violation in a history where nothing was
// tested just as it finds none in a correct receiver's: an empty file,
// a run whose every write failed or timed out, a run that never read back
// what it wrote. A resource has evidence when at least one of its writes
// was acknowledged (accepted or rejected) and at least one read returned
// after such a write had returned, so that the read could observe it.
type Evidence struct {
	// Resources is the number of resources with client operations.
	Resources int `json:"resources"`
	// Thin lists the resources without evidence, and why.
	Thin []ThinResource `json:"thin,omitempty"`
	// Errors are the first distinct errors the target answered with.
	Errors ErrorSummary `json:"errors"`
}

// ThinResource is a resource whose operations prove nothing.
type ThinResource struct {
	Resource string `json:"resource"`
	Why      string `json:"why"`
}

// Enough reports whether every resource has evidence, and there is at
// least one.
func (e Evidence) Enough() bool { return e.Resources > 0 && len(e.Thin) == 0 }

// Reason says why the evidence is not enough, for a person; "" when it
// is.
func (e Evidence) Reason() string {
	if e.Enough() {
		return ""
	}
	if e.Resources == 0 {
		return "the history has no client operations"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d of %d resources have no evidence: ", len(e.Thin), e.Resources)
	for i, t := range e.Thin {
		if i == 3 {
			fmt.Fprintf(&b, "; and %d more", len(e.Thin)-3)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s: %s", printable(t.Resource), t.Why)
	}
	return b.String()
}

// resourceEvidence is what is known of one resource's operations.
type resourceEvidence struct {
	known                                 bool // a tally noted the resource (tally.note)
	writes, acked, unknown, failed, reads int
	firstAck                              int64 // the earliest return of an acknowledged write
	lastRead                              int64 // the latest invocation of a read that returned
}

// Evidence measures the evidence of h (see Evidence).
func (h *History) Evidence() Evidence {
	byNumber := make([]*resourceEvidence, len(h.resources.list))
	var order []uint32
	for i := range h.Ops {
		op := &h.Ops[i]
		if op.Initial() {
			continue
		}
		ev := byNumber[op.Resource]
		if ev == nil {
			ev = &resourceEvidence{firstAck: Infinity, lastRead: -1}
			byNumber[op.Resource] = ev
			order = append(order, op.Resource)
		}
		ev.add(op.IsWrite(), op.Status, op.Call, op.Return)
	}
	out := Evidence{Resources: len(order), Errors: h.Errors}
	for _, r := range order {
		if why := byNumber[r].missing(); why != "" {
			out.Thin = append(out.Thin, ThinResource{Resource: h.ResourceName(r), Why: why})
		}
	}
	return out
}

// add counts an operation: a write or a read, invoked at call and
// answered at ret.
func (ev *resourceEvidence) add(write bool, status Status, call, ret int64) {
	if !write {
		if status == StatusOK {
			ev.reads++
			ev.lastRead = max(ev.lastRead, call)
		}
		return
	}
	ev.writes++
	switch status {
	case StatusAccepted, StatusRejected:
		ev.acked++
		ev.firstAck = min(ev.firstAck, ret)
	case StatusUnknown:
		ev.unknown++
	case StatusFailed:
		ev.failed++
	}
}

func (ev *resourceEvidence) missing() string {
	switch {
	case ev.writes == 0:
		return "no write was sent"
	case ev.acked == 0:
		return fmt.Sprintf("no write was acknowledged (%d writes: %d with unknown outcome, %d failed)", ev.writes, ev.unknown, ev.failed)
	case ev.reads == 0:
		return "no read returned"
	case ev.lastRead <= ev.firstAck:
		return "no read began after an acknowledged write had returned"
	}
	return ""
}

// printable returns s as it is when a terminal shows every character of
// it as it is, and otherwise quoted, with every character it would act on
// (a control, a bidirectional override, invalid UTF-8) escaped: a
// resource name comes from the history, and the reason is printed.
// strconv.Quote escapes what unicode.IsPrint refuses, which is the rule
// of internal/termsafe, so a name that needs no escape reads the same in
// every message.
func printable(s string) string {
	q := strconv.Quote(s)
	if q[1:len(q)-1] == s {
		return s
	}
	return q
}
