package tcpproxy

import (
	"io"
	"net"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
)

// TestReset: the chosen request reaches the receiver, which answers; the
// answer never reaches the client, whose connection is reset instead (and
// so is the receiver's): the ambiguous commit. Unchosen requests, and a
// toxic out of its window, pass.
func TestReset(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		active bool
		msg    string
		reset  bool
	}{
		{name: "chosen request", active: true, msg: "commit", reset: true},
		{name: "other request", active: true, msg: "select"},
		{name: "inactive", msg: "commit"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv()
			r := NewReset()
			r.Select = only("commit")
			r.Attach(e)
			r.SetActive(tc.active)
			srv := newEcho(t)
			c := dial(t, start(t, srv, r))
			roundTrip(t, c, "hello")
			if !tc.reset {
				roundTrip(t, c, tc.msg)
				assert.Empty(t, e.Events)
				return
			}
			_, err := c.Write([]byte(tc.msg))
			require.NoError(t, err)
			assert.Contains(t, e.next(t, histories.FBegin).Detail, "forwarding 6 bytes client to server")
			n, err := io.ReadFull(c, make([]byte, len(tc.msg)))
			assert.Zero(t, n, "no byte of the answer reached the client")
			assert.ErrorIs(t, err, syscall.ECONNRESET)
			assert.Contains(t, e.next(t, histories.FEnd).Detail, "dropped the answer and reset connection")
			assert.Equal(t, []string{"hello", "commit"}, srv.received(), "the request reached the receiver")
		})
	}
}

// TestResetClosedBeforeTheAnswer: a connection closed after its request
// reached the receiver and before the receiver answered ends the action
// without a reset.
func TestResetClosedBeforeTheAnswer(t *testing.T) {
	t.Parallel()
	e := newEnv()
	r := NewReset()
	r.Select = only("commit")
	r.Attach(e)
	r.SetActive(true)
	// A receiver that reads and never answers.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	got := make(chan string, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		b, _ := io.ReadAll(c)
		got <- string(b)
	}()
	p, err := Start(ln.Addr().String(), r)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, p.Close()) })
	c := dial(t, p)
	_, err = c.Write([]byte("commit"))
	require.NoError(t, err)
	e.next(t, histories.FBegin)
	require.NoError(t, c.CloseWrite())
	assert.Equal(t, "commit", <-got)
	assert.Contains(t, e.next(t, histories.FEnd).Detail, "closed before the receiver answered")
}
