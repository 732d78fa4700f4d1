package tcpproxy

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
)

// TestBlackhole: a swallowed request never reaches the receiver, nor does
// anything after it on its connection, and no answer comes back; the
// connection stays open until the client gives up, and other connections
// are untouched.
func TestBlackhole(t *testing.T) {
	t.Parallel()
	e := newEnv()
	b := NewBlackhole()
	b.Select = only("lost")
	b.Attach(e)
	b.SetActive(true)
	srv := newEcho(t)
	p := start(t, srv, b)
	lost, other := dial(t, p), dial(t, p)
	roundTrip(t, lost, "before")
	assert.Equal(t, "before", <-srv.seen)
	_, err := lost.Write([]byte("lost"))
	require.NoError(t, err)
	assert.Contains(t, e.next(t, histories.FBegin).Detail, "swallowing 4 bytes client to server")
	_, err = lost.Write([]byte("after"))
	require.NoError(t, err, "the connection is still open")
	roundTrip(t, other, "other")
	assert.Equal(t, "other", <-srv.seen)
	// The client gives up.
	require.NoError(t, lost.Close())
	assert.Contains(t, e.next(t, histories.FEnd).Detail, "closed by a peer that gave up waiting")
	ends := []connReceived{<-srv.done}
	assert.Equal(t, 6, ends[0].bytes, "the receiver got only what came before the blackhole")
	assert.Equal(t, []string{"before", "other"}, srv.received())
}

// TestBlackholeInactive passes everything.
func TestBlackholeInactive(t *testing.T) {
	t.Parallel()
	b := NewBlackhole()
	b.Select = only("lost")
	roundTrip(t, dial(t, start(t, newEcho(t), b)), "lost")
}
