package private

import (
	"context"
	"errors"
	"fmt"

	"github.com/fencecheck/fencecheck/internal/spawn"
	"github.com/fencecheck/fencecheck/targets/process"
)

// portAttempts is how many ports StartOnFreePort draws before it gives
// up. Each draw is taken by another process only by the chance of two
// random draws meeting, so five in a row means something else is wrong.
const portAttempts = 5

// FreePort returns a loopback TCP port for a private server: see
// spawn.FreePort, the one place ports are chosen.
func FreePort() (int, error) { return spawn.FreePort() }

// StartOnFreePort starts a server on a port from FreePort: child writes
// the server's settings for port and returns its Child, not started yet;
// StartOnFreePort starts it and waits until it is ready. When something
// else already answers on that port (process.ErrAddrInUse: another
// process on the machine chose the same port between the choice and the
// start), it stops that child, takes another port and calls child again.
// Any other error ends it at once.
func StartOnFreePort(ctx context.Context, child func(port int) (*process.Child, error)) (*process.Child, int, error) {
	var taken []error
	for range portAttempts {
		port, err := FreePort()
		if err != nil {
			return nil, 0, errors.Join(append(taken, err)...)
		}
		c, err := child(port)
		if err != nil {
			return nil, 0, err
		}
		if err := c.Start(ctx); err != nil {
			err = errors.Join(err, c.Stop(0))
			if !errors.Is(err, process.ErrAddrInUse) {
				return nil, 0, err
			}
			taken = append(taken, err)
			continue
		}
		return c, port, nil
	}
	return nil, 0, fmt.Errorf("%d ports chosen in a row were taken by other processes: %w", portAttempts, errors.Join(taken...))
}
