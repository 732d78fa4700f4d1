package natsserver

import (
	"context"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// reconnectWait is the pause between two reconnection attempts: short,
// for the server fencecheck restarts is back within moments.
const reconnectWait = 20 * time.Millisecond

// Connect connects to the server at url as fencecheck's clients do: they
// reconnect for as long as the connection lives, every reconnectWait,
// and they keep no reconnection buffer, so that a publish sent while the
// connection is down fails at once (nats.ErrReconnectBufExceeded: never
// sent) instead of being sent later, when its caller may have given up
// on it. timeout bounds the dial. The name says who the client is in the
// server's connection list.
func Connect(url, name string, timeout time.Duration) (*nats.Conn, error) {
	return nats.Connect(url,
		nats.Name(name),
		nats.Timeout(timeout),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(reconnectWait),
		nats.ReconnectJitter(0, 0),
		nats.ReconnectBufSize(-1),
		nats.NoCallbacksAfterClientClose(),
	)
}

// Ready returns a readiness check of the server at url: a client
// connects and JetStream answers an account-info request.
func Ready(url string) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		nc, err := nats.Connect(url, nats.Timeout(time.Second), nats.NoReconnect())
		if err != nil {
			return err
		}
		defer nc.Close()
		js, err := jetstream.New(nc)
		if err != nil {
			return err
		}
		if _, err := js.AccountInfo(ctx); err != nil {
			return fmt.Errorf("jetstream: %w", err)
		}
		return nil
	}
}
