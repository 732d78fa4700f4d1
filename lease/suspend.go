package lease

import "time"

// Suspend lets the lease on resource that carries token run out on the
// issuer, as it does when its holder pauses, and calls ended once its
// end is recorded. A Polled lease has no keepalive to stop: it runs out
// by its TTL on the issuer unless released, and the TTL check records
// that once the issuer confirms it. ended is also called when anything
// else ends the lease, and when the service closes. within is how long
// that takes on an issuer that answers: the TTL, and as long again for
// an issuer whose clock runs behind, plus a call's timeout. ok is false
// when the lease is no longer current.
func (p *Polled) Suspend(resource string, token uint64, ended func()) (within time.Duration, ok bool) {
	st := p.state(resource)
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.holder == nil || st.holder.Token != token {
		return 0, false
	}
	st.onEnd = append(st.onEnd, ended)
	return 2*p.env.TTL + p.opts.OpTimeout, true
}
