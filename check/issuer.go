package check

import (
	"fmt"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/internal/termsafe"
)

// IssuerViolation is a grant that breaks the token issuer's own
// invariant: on each resource, every grant's token is strictly greater
// than every earlier grant's, so that no token is granted twice. Fencing
// rests on it: a receiver that rejects old tokens protects nothing when
// two holders carry the same token, or when the newer holder carries the
// lower one. It is the issuer's fault, not the receiver's, and reported
// apart from the receiver's violations (Result.Blames).
type IssuerViolation struct {
	Kind     IssuerKind `json:"kind"`
	Resource string     `json:"resource"`
	// Token is the offending grant's; Earlier is the earlier grant's token
	// it collides with (Reused: the same token) or stays below
	// (NotIncreasing: the highest granted before it).
	Token   uint64 `json:"token"`
	Earlier uint64 `json:"earlier_token"`
	// Index and EarlierIndex are the two grant events' indexes in the
	// history; Holder and EarlierHolder the workers they went to (-1 when
	// the event names none).
	Index         int64 `json:"index"`
	EarlierIndex  int64 `json:"earlier_index"`
	Holder        int   `json:"worker"`
	EarlierHolder int   `json:"earlier_worker"`
	// After names the issuer's last leader change between the two grants
	// ("issuer-failover: the leader is now redis-server r1, …"), the
	// likely cause; empty when there was none.
	After string `json:"after,omitempty"`
	// Restore is the restore of the issuer from a snapshot that came
	// between the two grants, "" when none did: what made the issuer
	// forget the earlier grant. It came between when it began (a
	// histories.FRestore event) before the offending grant was recorded
	// and ended (its fault's next FEnd event) after the earlier one was,
	// or has not ended: a grant of the restored issuer can be recorded
	// before the restore's end is. It quotes the end's words (what
	// became of the sequence), else the beginning's, with the fault and
	// the beginning's index.
	Restore string `json:"restore,omitempty"`
}

// IssuerKind says how a grant breaks the issuer's invariant.
type IssuerKind string

// Issuer violations.
const (
	// Reused: the token was granted before on the resource, to another
	// worker or to the same one.
	Reused IssuerKind = "reused"
	// NotIncreasing: the token is below one granted before on the resource.
	NotIncreasing IssuerKind = "not increasing"
)

// String words the violation for people, names escaped for a terminal.
func (v IssuerViolation) String() string {
	out := v.grants()
	if v.After != "" {
		out += ", after a leader change: " + termsafe.String(v.After)
	}
	if v.Restore != "" {
		out += ", after the issuer was restored from a snapshot: " + termsafe.String(v.Restore)
	}
	return out
}

// grants words the two grants.
func (v IssuerViolation) grants() string {
	res := termsafe.String(v.Resource)
	if v.Kind == NotIncreasing {
		return fmt.Sprintf("the issuer granted token %d after token %d on resource %s (%s at index %d, after %s at index %d)",
			v.Token, v.Earlier, res, worker(v.Holder), v.Index, worker(v.EarlierHolder), v.EarlierIndex)
	}
	if v.Holder == v.EarlierHolder {
		return fmt.Sprintf("the issuer handed token %d on resource %s to %s twice (at index %d and %d)",
			v.Token, res, worker(v.Holder), v.EarlierIndex, v.Index)
	}
	return fmt.Sprintf("the issuer handed token %d on resource %s to two workers (%s at index %d, %s at index %d)",
		v.Token, res, worker(v.EarlierHolder), v.EarlierIndex, worker(v.Holder), v.Index)
}

func worker(w int) string {
	if w < 0 {
		return "an unnamed worker"
	}
	return fmt.Sprintf("worker %d", w)
}

// CheckIssuer judges the issuer's grants among events (a history's lease
// and nemesis events, histories.History.Others): the lease acquire events,
// resource by resource, in history order. Renewals, expiries, releases and
// revocations grant nothing and are not judged; nor is a grant without a
// token, which says nothing about the sequence. An issuer whose tokens
// come from one sequence for every resource (etcd's revisions) meets the
// invariant too: it is asked only per resource.
//
// A violation names the last leader change recorded between its two
// grants (a nemesis leader event: an issuer fault's failover), which is
// where a sequence that goes back usually went back.
//
// History order is the order in which the run learned of the grants: a
// grant is recorded when the worker receives its token, not when the
// issuer committed it. Two grants learned concurrently (two workers'
// acquires returning at once) are judged in the order they were recorded.
// For a lease that one worker holds at a time, the next grant can only be
// committed after the previous one ended, so this order is the issuer's
// unless a grant is recorded so late that its lease ended first; an
// issuer must therefore record a grant as soon as it learns of it. A
// reused token is a violation in any order.
func CheckIssuer(events []histories.Event) []IssuerViolation {
	type grant struct {
		token  uint64
		index  int64
		holder int
	}
	type sequence struct {
		granted map[uint64]grant
		highest grant
	}
	seqs := make(map[string]*sequence)
	var out []IssuerViolation
	var change *histories.Event        // the last leader change
	var restore *restoreSpan           // the last restore of the issuer
	restored := map[int]*restoreSpan{} // the violations of out a restore came between
	for i := range events {
		e := &events[i]
		if e.Actor == histories.ActorNemesis {
			if e.F == histories.FLeader {
				change = e
			}
			restore = restore.see(e)
			continue
		}
		if e.Actor != histories.ActorLease || e.F != histories.FAcquire || !e.HasToken {
			continue
		}
		g := grant{token: e.Token, index: e.Index, holder: -1}
		if e.HasHolder {
			g.holder = e.Holder
		}
		s, ok := seqs[e.Resource]
		if !ok {
			s = &sequence{granted: make(map[uint64]grant), highest: g}
			seqs[e.Resource] = s
		}
		v := IssuerViolation{Resource: e.Resource, Token: g.token, Index: g.index, Holder: g.holder}
		if earlier, ok := s.granted[g.token]; ok {
			v.Kind, v.Earlier, v.EarlierIndex, v.EarlierHolder = Reused, earlier.token, earlier.index, earlier.holder
		} else {
			s.granted[g.token] = g
			if g.token >= s.highest.token {
				s.highest = g
				continue
			}
			v.Kind, v.Earlier, v.EarlierIndex, v.EarlierHolder = NotIncreasing, s.highest.token, s.highest.index, s.highest.holder
		}
		if change != nil && change.Index > v.EarlierIndex {
			v.After = change.Fault + ": " + change.Detail
		}
		if restore.between(v) {
			restored[len(out)] = restore // worded below, once its end is known
		}
		out = append(out, v)
	}
	for i, r := range restored {
		out[i].Restore = r.words()
	}
	return out
}

// restoreSpan is a restore of the issuer from a snapshot: the event that
// began it, and its fault's next end event, nil until recorded.
type restoreSpan struct{ begin, end *histories.Event }

// see returns the restore that nemesis event e leaves last: a new one
// when e begins one, else r, ended by e if e is its fault's first end.
func (r *restoreSpan) see(e *histories.Event) *restoreSpan {
	switch {
	case e.F == histories.FRestore:
		return &restoreSpan{begin: e}
	case r != nil && r.end == nil && e.F == histories.FEnd && e.Fault == r.begin.Fault:
		r.end = e
	}
	return r
}

// between reports whether r came between v's two grants.
func (r *restoreSpan) between(v IssuerViolation) bool {
	return r != nil && r.begin.Index < v.Index && (r.end == nil || v.EarlierIndex < r.end.Index)
}

// words says what r did, with its fault and where it began.
func (r *restoreSpan) words() string {
	detail := r.begin.Detail
	if r.end != nil {
		detail = r.end.Detail
	}
	return fmt.Sprintf("%s (%s, index %d)", detail, r.begin.Fault, r.begin.Index)
}
