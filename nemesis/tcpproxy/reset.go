package tcpproxy

import (
	"context"
	"fmt"
	"sync"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/nemesis/internal/toxic"
)

// Reset forwards a chosen request to the receiver, lets the receiver
// answer, and then resets the connection on both sides before the answer
// reaches the client: the ambiguous commit. The receiver applied the
// write (or rejected it) and the client got only "connection reset by
// peer", so it must record the write's outcome as unknown; a client that
// calls it failed tells the checker a write did not happen that did.
//
// The reset is driven by events, not time: the request's chunk is
// forwarded, the client's later bytes too (a request may span chunks),
// and the reset fires on the first bytes of the receiver's answer, which
// exist only once the receiver has acted on the request. A chunk from
// the client is chosen with Probability while active (Select for a
// script); an armed connection resets on its answer even if the window
// has closed meanwhile.
type Reset struct {
	fault
	armedMu sync.Mutex
	armed   map[int64]*Chunk // connection → the request whose answer resets it
}

// NewReset returns the reset toxic with its defaults.
func NewReset() *Reset {
	return &Reset{fault: fault{Switch: toxic.Switch{FaultName: NameReset, Needs: nemesis.NeedTCPProxy}, Probability: 0.1}, armed: map[int64]*Chunk{}}
}

// Pipe implements Toxic.
func (r *Reset) Pipe(_ context.Context, c *Conn, ch *Chunk) Verdict {
	if ch.Dir == Down {
		r.armedMu.Lock()
		req, ok := r.armed[c.ID]
		delete(r.armed, c.ID)
		r.armedMu.Unlock()
		if !ok {
			return Forward
		}
		r.Record(histories.FEnd, fmt.Sprintf("the receiver answered %s (%d bytes); dropped the answer and reset connection %d on both sides",
			req, len(ch.Data), c.ID))
		return ResetBoth
	}
	if !r.Chosen(ch, true) {
		return Forward
	}
	r.armedMu.Lock()
	_, already := r.armed[c.ID]
	if !already {
		r.armed[c.ID] = ch
	}
	r.armedMu.Unlock()
	if already {
		return Forward
	}
	r.Record(histories.FBegin, fmt.Sprintf("forwarding %s to the receiver; resetting the connection before its answer reaches the client", ch))
	c.OnClose(func() {
		r.armedMu.Lock()
		_, unanswered := r.armed[c.ID]
		delete(r.armed, c.ID)
		r.armedMu.Unlock()
		if unanswered {
			r.Record(histories.FEnd, fmt.Sprintf("connection %d closed before the receiver answered %s", c.ID, ch))
		}
	})
	return Forward
}
