package zklease

import (
	"encoding/binary"
	"io"
	"net"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"
)

// TestASessionAnsweredWithNoTimeoutExpiresInsteadOfCrashing: a server
// that answers a reconnecting session with its id but a timeout of zero
// (which the Java client reads as an expiry) must end the session as
// expired. Unguarded, go-zookeeper sets a ping interval of zero and
// panics, killing the fencecheck process in the middle of a run.
func TestASessionAnsweredWithNoTimeoutExpiresInsteadOfCrashing(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	// The fake server grants session 42 with a timeout of 4s on the first
	// connection and drops it; the client reconnects with session 42 and
	// is answered with a timeout of 0; later connections are dropped.
	go func() {
		for i := 0; ; i++ {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			switch i {
			case 0:
				answerConnect(c, 4000, 42)
			case 1:
				answerConnect(c, 0, 42)
			}
			_ = c.Close()
		}
	}()
	s := &session{}
	conn, events, err := zk.Connect([]string{ln.Addr().String()}, 4*time.Second, zk.WithDialer(s.dial), zk.WithLogger(s))
	require.NoError(t, err)
	t.Cleanup(conn.Close)
	var seen []zk.State
	deadline := time.After(time.Minute)
	for {
		select {
		case ev := <-events:
			seen = append(seen, ev.State)
			if ev.State == zk.StateExpired {
				require.Contains(t, seen, zk.StateHasSession, "the session was granted before it expired")
				return
			}
		case <-deadline:
			t.Fatalf("the session never expired; states seen: %v", seen)
		}
	}
}

// answerConnect reads a connect request from c and answers it with a
// session of the id and timeout given.
func answerConnect(c net.Conn, timeoutMs int32, session int64) {
	var head [4]byte
	if _, err := io.ReadFull(c, head[:]); err != nil {
		return
	}
	if _, err := io.CopyN(io.Discard, c, int64(binary.BigEndian.Uint32(head[:]))); err != nil {
		return
	}
	body := binary.BigEndian.AppendUint32(nil, 0) // protocol version
	body = binary.BigEndian.AppendUint32(body, uint32(timeoutMs))
	body = binary.BigEndian.AppendUint64(body, uint64(session))
	body = binary.BigEndian.AppendUint32(body, 16) // password
	body = append(body, make([]byte, 16)...)
	body = append(body, 0) // not read-only
	_, _ = c.Write(append(binary.BigEndian.AppendUint32(nil, uint32(len(body))), body...))
}
