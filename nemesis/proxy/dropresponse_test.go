package proxy

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/nemesis/internal/fakeenv"
	"github.com/fencecheck/fencecheck/targets"
)

// TestDropResponse: a chosen write is forwarded, and the receiver's
// answer, whatever it was, never reaches the worker; a failed forward is
// passed on as it is; an unchosen request gets its answer.
func TestDropResponse(t *testing.T) {
	t.Parallel()
	refused := errors.New("connection refused")
	cases := []struct {
		name    string
		active  bool
		answer  forwarded
		dropped bool
		err     error
	}{
		{name: "inactive", answer: forwarded{resp: &Response{Status: 200}}},
		{name: "accepted, answer dropped", active: true, answer: forwarded{resp: &Response{Status: 200}}, dropped: true},
		{name: "rejected, answer dropped", active: true, answer: forwarded{resp: &Response{Status: 409}}, dropped: true},
		{name: "the forward failed", active: true, answer: forwarded{err: refused}, err: refused},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := fakeenv.New()
			d := NewDropResponse()
			d.Select = WriteOf("r", 2)
			d.SetActive(tc.active)
			d.Attach(env)
			resp, at, err := pipe(t, env, d, write("r", 2), tc.answer)
			assert.Len(t, at, 1, "forwarded once: the receiver applies the write")
			switch {
			case tc.dropped:
				assert.ErrorIs(t, err, errDropped)
				assert.Nil(t, resp)
				assert.Equal(t, 1, env.Begins("drop-response"))
			case tc.err != nil:
				assert.ErrorIs(t, err, tc.err)
				assert.Zero(t, env.Begins("drop-response"), "nothing was dropped")
			default:
				require.NoError(t, err)
				assert.Equal(t, tc.answer.resp, resp)
			}
		})
	}
}

// TestDropResponseThroughTheProxy: the receiver applies the write, and
// the worker, with no answer, records an outcome it cannot know.
func TestDropResponseThroughTheProxy(t *testing.T) {
	t.Parallel()
	d := NewDropResponse()
	s := writeThroughProxy(t, d, &d.fault)
	require.Error(t, s.err, "the answer should have been dropped")
	assert.NotErrorIs(t, s.err, targets.ErrDefinitelyNotApplied)
	assert.Equal(t, int64(2), s.puts)
	assert.Equal(t, uint64(2), s.final, "the receiver applied token 2")
}
