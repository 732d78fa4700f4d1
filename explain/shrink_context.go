package explain

import (
	"strconv"
	"strings"

	"github.com/fencecheck/fencecheck/histories"
)

// maxContextEvents bounds the lease and nemesis events kept beside a
// minimal counterexample: they are there to be read.
const maxContextEvents = 12

// contextEvents picks the lease and nemesis events that tell the story of
// a minimal counterexample on resource: the lease events of the tokens its
// writes carried (who was granted 41, when it expired, who got 42), and
// the nemesis events during its operations that concern the resource,
// with the fault windows open at the time.
func contextEvents(ops []histories.Operation, others []histories.Event, resource string) []histories.Event {
	if len(ops) == 0 {
		return nil
	}
	tokens := make(map[uint64]bool)
	from, to := ops[0].Call, ops[0].Call
	for i := range ops {
		if ops[i].IsWrite() {
			tokens[ops[i].Token] = true
		}
		from = min(from, ops[i].Call)
		if ops[i].Return != histories.Infinity {
			to = max(to, ops[i].Return)
		}
		to = max(to, ops[i].Call)
	}
	var out []histories.Event
	resumes := make(map[string]bool) // "worker 3 resumes" of paused workers kept
	for _, e := range others {
		if len(out) == maxContextEvents {
			break
		}
		inWindow := e.Time >= from && e.Time <= to
		switch {
		case e.Actor == histories.ActorLease:
			if e.Resource == resource && tokens[e.Token] && e.Time <= to {
				out = append(out, e)
			}
		case e.Actor != histories.ActorNemesis || !inWindow:
		case e.F == histories.FStart || e.F == histories.FStop:
			out = append(out, e)
		case mentions(e.Detail, resource, tokens):
			out = append(out, e)
			if worker, _, ok := strings.Cut(e.Detail, " (process"); ok {
				resumes[worker+" resumes"] = true
			}
		case e.F == histories.FEnd && resumes[pausedWorker(e.Detail)]:
			out = append(out, e)
		}
	}
	return out
}

// mentions reports whether a nemesis action's description names one of
// the tokens on the resource ("token 41 on r2", "token 41 to r2").
func mentions(detail, resource string, tokens map[uint64]bool) bool {
	for t := range tokens {
		tok := "token " + strconv.FormatUint(t, 10)
		for _, phrase := range []string{tok + " on " + resource, tok + " to " + resource} {
			i := strings.Index(detail, phrase)
			if i < 0 {
				continue
			}
			rest := detail[i+len(phrase):]
			if rest == "" || !isWordByte(rest[0]) {
				return true
			}
		}
	}
	return false
}

// pausedWorker returns "worker N resumes" from the end of a pause.
func pausedWorker(detail string) string {
	head, _, _ := strings.Cut(detail, ":")
	return head
}

func isWordByte(b byte) bool {
	return b == '_' || b == '-' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}
