package targets

import (
	"errors"

	"github.com/fencecheck/fencecheck/histories"
)

// WriteCompletion returns the event that completes the write invocation
// inv, given what the target answered: ok with its outcome; fail when the
// error says nothing was applied (ErrDefinitelyNotApplied); info, an
// unknown outcome, for any other error. Every recorder of client
// operations (the harness, the replay, verify) goes through it, so a given
// answer is recorded the same way everywhere.
func WriteCompletion(inv histories.Event, out Outcome, err error) histories.Event {
	done := inv
	done.Outcome = histories.OutcomeNone
	switch {
	case errors.Is(err, ErrDefinitelyNotApplied):
		done.Type = histories.TypeFail
	case err != nil:
		done.Type = histories.TypeInfo
	default:
		done.Type, done.Outcome = histories.TypeOK, histories.Rejected
		if out == Accepted {
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
	if err != nil {
		done.Type = histories.TypeInfo
		return done
	}
	done.Type = histories.TypeOK
	done.Value, done.HasValue = r.Value, r.Found
	done.Token, done.HasToken = r.Token, r.HasToken
	return done
}
