package tcpproxy

import (
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/nemesis"
)

// TestRelay: without a fault the proxy relays both ways on every
// connection, and passes a half-close on.
func TestRelay(t *testing.T) {
	t.Parallel()
	e := newEcho(t)
	p := start(t, e, NewLatency(), NewHold(), NewBlackhole(), NewReset()) // all inactive
	a, b := dial(t, p), dial(t, p)
	roundTrip(t, a, "one")
	roundTrip(t, b, "two")
	roundTrip(t, a, "three")
	require.NoError(t, a.CloseWrite())
	end := <-e.done
	assert.Equal(t, 8, end.bytes, "the receiver saw the client's half-close after its bytes")
	n, err := a.Read(make([]byte, 1))
	assert.Equal(t, 0, n)
	assert.ErrorIs(t, err, io.EOF, "and its close came back")
	roundTrip(t, b, "four")
}

func TestStartRefusesAnAddressWithoutPort(t *testing.T) {
	t.Parallel()
	_, err := Start("127.0.0.1")
	require.Error(t, err)
}

func TestNamesAreTheFaults(t *testing.T) {
	t.Parallel()
	for _, name := range Names() {
		f, ok := New(name)
		require.True(t, ok, name)
		assert.Equal(t, name, f.Name())
		assert.Len(t, Toxics([]nemesis.Fault{f}), 1, "%s is a toxic", name)
	}
	_, ok := New("latency")
	assert.False(t, ok, "the HTTP proxy's names are not these")
}

// TestToxicsAreAvailableWhileAProxyHoldsThem: a toxic acts only in a
// started proxy, and knows when one holds it: a run that has it in no
// proxy is refused (nemesis.Fault.Available) unless its site says the
// target will be opened behind one.
func TestToxicsAreAvailableWhileAProxyHoldsThem(t *testing.T) {
	t.Parallel()
	for _, name := range Names() {
		f, _ := New(name)
		err := f.Available(nemesis.Site{})
		var u *nemesis.Unavailable
		require.ErrorAs(t, err, &u, name)
		assert.Equal(t, nemesis.NeedTCPProxy, u.Needs)
		assert.NoError(t, f.Available(nemesis.Site{TCPProxy: true}), "%s where the site offers the proxy", name)
		assert.Error(t, f.Available(nemesis.Site{HTTPProxy: true}), "%s does not act in the HTTP proxy", name)

		p, err := Start("127.0.0.1:1", Toxics([]nemesis.Fault{f})...)
		require.NoError(t, err)
		assert.NoError(t, f.Available(nemesis.Site{}), "%s in a started proxy", name)
		require.NoError(t, p.Close())
		require.NoError(t, p.Close(), "a second Close")
		assert.Error(t, f.Available(nemesis.Site{}), "%s once the proxy is closed", name)
	}
}
