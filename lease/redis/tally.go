package redislease

import "sync"

// tally counts the tokens a primary issues while its replica is detached
// (Replicated.HoldReplica): the event the issuer-failover fault waits for, so
// that a failover comes after a number of grants, not after a time. Only
// grants begun after the detach count: their writes cannot have reached
// the replica. A nil tally counts nothing.
type tally struct {
	mu       sync.Mutex
	detached bool
	issued   int // tokens issued since the detach
	refused  int // of them, refused for want of a replica's acknowledgement
	want     int
	reached  func() // called once issued reaches want
}

// begin reports whether a grant beginning now counts.
func (t *tally) begin() bool {
	if t == nil {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.detached
}

// issue counts a token issued by a grant that counts, refused or not.
func (t *tally) issue(counted, refused bool) {
	if t == nil || !counted {
		return
	}
	t.mu.Lock()
	t.issued++
	if refused {
		t.refused++
	}
	var fn func()
	if t.reached != nil && t.issued >= t.want {
		fn, t.reached = t.reached, nil
	}
	t.mu.Unlock()
	if fn != nil {
		fn()
	}
}

// detach starts counting.
func (t *tally) detach() {
	t.mu.Lock()
	t.detached, t.issued, t.refused, t.reached = true, 0, 0, nil
	t.mu.Unlock()
}

// after calls reached once n tokens were issued since the detach, at
// once if they were.
func (t *tally) after(n int, reached func()) {
	t.mu.Lock()
	if t.issued < n {
		t.want, t.reached = n, reached
		reached = nil
	}
	t.mu.Unlock()
	if reached != nil {
		reached()
	}
}

// end stops counting and returns what was counted.
func (t *tally) end() (issued, refused int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.detached, t.reached = false, nil
	return t.issued, t.refused
}
