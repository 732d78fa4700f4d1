package zklease

import (
	"encoding/binary"
	"io"
	"net"
)

// expiryGuard is a connection to a ZooKeeper server that makes sure
// go-zookeeper reads an answer to its connect request that grants no
// session timeout as what it is: the session expired.
//
// The Java client takes a negotiated timeout of zero or less for an
// expired session (ClientCnxn.onConnected). go-zookeeper v1.0.4 looks
// only at the session id: given a non-zero id with a zero timeout, it
// sets its ping interval to zero and its send loop panics on
// time.NewTicker, which kills the whole fencecheck process mid-run
// (samuel/go-zookeeper#132; seen here once, on a loaded machine, with a
// lease's session reconnecting after its server was SIGKILLed). That is
// the only way its ping interval can reach zero, so the guard rewrites
// such an answer's session id to zero, the expiry go-zookeeper
// understands: the lease's session ends as an expired one, which the
// store already handles.
//
// Only the connect response, the first frame the server sends, is
// looked at; everything after it passes through untouched.
type expiryGuard struct {
	net.Conn
	read    bool   // the connect response was read
	pending []byte // the part of it not yet handed on
}

// maxConnectResponse bounds the connect response the guard reads whole:
// a real one is under 64 bytes; anything longer is passed on unread.
const maxConnectResponse = 1 << 12

// Read implements net.Conn.
func (g *expiryGuard) Read(p []byte) (int, error) {
	if !g.read {
		if err := g.readConnectResponse(); err != nil {
			return 0, err
		}
		g.read = true
	}
	if len(g.pending) > 0 {
		n := copy(p, g.pending)
		g.pending = g.pending[n:]
		return n, nil
	}
	return g.Conn.Read(p)
}

// readConnectResponse reads the first frame (a 4-byte length, then the
// response: protocol version, timeout, session id, password) into
// pending, with its session id cleared when its timeout is not positive.
func (g *expiryGuard) readConnectResponse() error {
	var head [4]byte
	if _, err := io.ReadFull(g.Conn, head[:]); err != nil {
		return err
	}
	n := binary.BigEndian.Uint32(head[:])
	if n > maxConnectResponse {
		g.pending = head[:]
		return nil
	}
	frame := make([]byte, 4+n)
	copy(frame, head[:])
	if _, err := io.ReadFull(g.Conn, frame[4:]); err != nil {
		return err
	}
	g.pending = frame
	if n < 16 {
		return nil // too short to be one: go-zookeeper rejects it
	}
	timeout := int32(binary.BigEndian.Uint32(frame[8:12]))
	if timeout <= 0 {
		clear(frame[12:20])
	}
	return nil
}
