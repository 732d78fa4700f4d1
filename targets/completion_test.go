package targets

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"

	"github.com/fencecheck/fencecheck/histories"
)

func TestCompletions(t *testing.T) {
	t.Parallel()
	inv := histories.Event{Process: 3, Type: histories.TypeInvoke, F: histories.FWrite, Resource: "r", Token: 7, HasToken: true, Value: "v", HasValue: true}
	cases := []struct {
		name    string
		out     histories.Outcome
		err     error
		typ     histories.Type
		outcome histories.Outcome
		errText string // what the completion records
	}{
		{"accepted", histories.Accepted, nil, histories.TypeOK, histories.Accepted, ""},
		{"rejected", histories.Rejected, nil, histories.TypeOK, histories.Rejected, ""},
		{"never sent", 0, fmt.Errorf("%w: dial tcp: connection refused", ErrDefinitelyNotApplied), histories.TypeFail, histories.OutcomeNone, "dial tcp: connection refused"},
		{"timeout", histories.Accepted, errors.New("deadline exceeded"), histories.TypeInfo, histories.OutcomeNone, "deadline exceeded"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			done := WriteCompletion(inv, tc.out, tc.err)
			assert.Equal(t, tc.typ, done.Type)
			assert.Equal(t, tc.outcome, done.Outcome)
			assert.Equal(t, inv.Process, done.Process)
			assert.Equal(t, inv.Token, done.Token)
			assert.Equal(t, tc.errText, done.Error)
		})
	}
	read := histories.Event{Process: 4, Type: histories.TypeInvoke, F: histories.FRead, Resource: "r"}
	done := ReadCompletion(read, Reading{Found: true, Value: "v", Token: 7, HasToken: true}, nil)
	assert.Equal(t, histories.Event{Process: 4, Type: histories.TypeOK, F: histories.FRead, Resource: "r", Value: "v", HasValue: true, Token: 7, HasToken: true}, done)
	failed := ReadCompletion(read, Reading{}, errors.New("reset"))
	assert.Equal(t, histories.TypeInfo, failed.Type)
	assert.Equal(t, "reset", failed.Error)
}

// TestErrorTextIsBounded: a receiver that answers a write with a page of
// HTML must not bloat the history; the cut keeps the text valid UTF-8.
func TestErrorTextIsBounded(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 1000)
	got := ErrorText(errors.New(long))
	assert.LessOrEqual(t, len(got), maxErrorText+len("…"))
	assert.True(t, utf8.ValidString(got))
	assert.True(t, strings.HasSuffix(got, "…"))
}
