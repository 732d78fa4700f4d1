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

// StartOnFreePort starts a server on a port from FreePort: start writes
// the server's settings for port and starts its Child. When something
// else already answers on that port (process.ErrAddrInUse: another
// process on the machine drew the same port at random between the draw
// and the start), it draws another port and calls start again; start
// must have stopped what it started before it returns that error. Any
// other error ends it at once.
func StartOnFreePort(ctx context.Context, start func(ctx context.Context, port int) (*process.Child, error)) (*process.Child, int, error) {
	var taken []error
	for range portAttempts {
		port, err := FreePort()
		if err != nil {
			return nil, 0, errors.Join(append(taken, err)...)
		}
		child, err := start(ctx, port)
		if err == nil {
			return child, port, nil
		}
		if !errors.Is(err, process.ErrAddrInUse) {
			return nil, 0, err
		}
		taken = append(taken, err)
	}
	return nil, 0, fmt.Errorf("%d ports drawn in a row were taken by other processes: %w", portAttempts, errors.Join(taken...))
}
