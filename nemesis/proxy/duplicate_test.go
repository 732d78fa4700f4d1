package proxy

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/nemesis/internal/fakeenv"
)

// TestDuplicate: a chosen request is forwarded twice; the worker gets the
// first answer, or the first error, and the copy's answer is lost.
func TestDuplicate(t *testing.T) {
	t.Parallel()
	reset := errors.New("connection reset")
	cases := []struct {
		name     string
		active   bool
		answers  []forwarded
		forwards int
		status   int
		err      error
	}{
		{name: "inactive", answers: []forwarded{{resp: &Response{Status: 200}}}, forwards: 1, status: 200},
		{name: "twice, the first answer kept", active: true,
			answers: []forwarded{{resp: &Response{Status: 200}}, {resp: &Response{Status: 409}}}, forwards: 2, status: 200},
		{name: "the first error kept", active: true,
			answers: []forwarded{{err: reset}, {resp: &Response{Status: 200}}}, forwards: 2, err: reset},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := fakeenv.New()
			d := NewDuplicate()
			d.Select = WriteOf("r", 2)
			d.SetActive(tc.active)
			d.Attach(env)
			resp, at, err := pipe(t, env, d, write("r", 2), tc.answers...)
			assert.Len(t, at, tc.forwards)
			assert.Equal(t, tc.forwards-1, env.Begins("duplicate-request"))
			if tc.err != nil {
				assert.ErrorIs(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.status, resp.Status)
		})
	}
}

// TestDuplicateThroughTheProxy: the copy reaches the receiver too, and a
// strict receiver rejects it, leaving token 2 stored.
func TestDuplicateThroughTheProxy(t *testing.T) {
	t.Parallel()
	d := NewDuplicate()
	s := writeThroughProxy(t, d, &d.fault)
	require.NoError(t, s.err)
	assert.Equal(t, histories.Accepted, s.outcome)
	assert.Equal(t, int64(3), s.puts)
	assert.Equal(t, uint64(2), s.final)
}
