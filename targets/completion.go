package targets

import (
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/fencecheck/fencecheck/histories"
)

// WriteCompletion returns the event that completes the write invocation
// inv, given what the target answered: ok with its outcome; fail when the
// error says nothing was applied (ErrDefinitelyNotApplied); info, an
// unknown outcome, for any other error. Every recorder of client
// operations (the harness, the replay, verify) goes through it, so a given
// answer is recorded the same way everywhere.
func WriteCompletion(inv histories.Event, out histories.Outcome, err error) histories.Event {
	done := inv
	done.Outcome, done.Trace = histories.OutcomeNone, "" // the trace id stays on the invocation
	switch {
	case errors.Is(err, ErrDefinitelyNotApplied):
		done.Type, done.Error = histories.TypeFail, ErrorText(err)
	case err != nil:
		done.Type, done.Error = histories.TypeInfo, ErrorText(err)
	default:
		done.Type, done.Outcome = histories.TypeOK, histories.Rejected
		if out == histories.Accepted {
			done.Outcome = histories.Accepted
		}
	}
	return done
}

// ReadCompletion returns the event that completes the read invocation inv:
// ok with the value and token read, or info for any error (a read that
// failed changed nothing, so fail and info mean the same to a checker).
func ReadCompletion(inv histories.Event, r Reading, err error) histories.Event {
	done := inv
	done.Trace = "" // on the invocation alone
	if err != nil {
		done.Type, done.Error = histories.TypeInfo, ErrorText(err)
		return done
	}
	done.Type = histories.TypeOK
	done.Value, done.HasValue = r.Value, r.Found
	done.Token, done.HasToken = r.Token, r.HasToken
	return done
}

// maxErrorText bounds the error recorded with a completion: a receiver
// can answer with a page of HTML, and the history is for checking.
const maxErrorText = 512

// ErrorText is err as a history records it: without the marker of
// ErrDefinitelyNotApplied (the fail type says it), and cut to
// maxErrorText bytes at a character boundary.
func ErrorText(err error) string {
	s := strings.ReplaceAll(err.Error(), ErrDefinitelyNotApplied.Error()+": ", "")
	if len(s) <= maxErrorText {
		return s
	}
	cut := maxErrorText
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
