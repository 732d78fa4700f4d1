package targets

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fencecheck/fencecheck/histories"
)

func TestCompletions(t *testing.T) {
	t.Parallel()
	inv := histories.Event{Process: 3, Type: histories.TypeInvoke, F: histories.FWrite, Resource: "r", Token: 7, HasToken: true, Value: "v", HasValue: true}
	cases := []struct {
		name    string
		out     Outcome
		err     error
		typ     histories.Type
		outcome histories.Outcome
	}{
		{"accepted", Accepted, nil, histories.TypeOK, histories.Accepted},
		{"rejected", Rejected, nil, histories.TypeOK, histories.Rejected},
		{"never sent", 0, fmt.Errorf("dial: %w", ErrDefinitelyNotApplied), histories.TypeFail, histories.OutcomeNone},
		{"timeout", Accepted, errors.New("deadline exceeded"), histories.TypeInfo, histories.OutcomeNone},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			done := WriteCompletion(inv, tc.out, tc.err)
			assert.Equal(t, tc.typ, done.Type)
			assert.Equal(t, tc.outcome, done.Outcome)
			assert.Equal(t, inv.Process, done.Process)
			assert.Equal(t, inv.Token, done.Token)
		})
	}
	read := histories.Event{Process: 4, Type: histories.TypeInvoke, F: histories.FRead, Resource: "r"}
	done := ReadCompletion(read, Reading{Found: true, Value: "v", Token: 7, HasToken: true}, nil)
	assert.Equal(t, histories.Event{Process: 4, Type: histories.TypeOK, F: histories.FRead, Resource: "r", Value: "v", HasValue: true, Token: 7, HasToken: true}, done)
	assert.Equal(t, histories.TypeInfo, ReadCompletion(read, Reading{}, errors.New("reset")).Type)
}
