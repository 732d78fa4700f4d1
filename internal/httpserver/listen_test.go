package httpserver

import (
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestIsLoopbackAddr: 127.0.0.0/8 and ::1 are loopback; another address,
// the unspecified one (every interface) and a non-TCP address are not.
func TestIsLoopbackAddr(t *testing.T) {
	t.Parallel()
	cases := []struct {
		addr net.Addr
		want bool
	}{
		{&net.TCPAddr{IP: net.ParseIP("127.0.0.1"), Port: 80}, true},
		{&net.TCPAddr{IP: net.ParseIP("127.3.2.1"), Port: 80}, true},
		{&net.TCPAddr{IP: net.ParseIP("::1"), Port: 80}, true},
		{&net.TCPAddr{IP: net.ParseIP("0.0.0.0"), Port: 80}, false},
		{&net.TCPAddr{IP: net.ParseIP("192.0.2.7"), Port: 80}, false},
		{&net.UnixAddr{Name: "/tmp/s", Net: "unix"}, false},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, IsLoopbackAddr(tc.addr), tc.addr.String())
	}
}
