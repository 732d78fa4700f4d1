// Package gotool lets a test run the go command as the test itself was
// built: with the same GOFLAGS, and with the race detector when the test
// has it. The go command then finds in the build cache what the test's
// own build compiled, and compiles only what is new (a main package, a
// link), where a go command with other flags compiles every package of
// the module again: minutes on a small machine, for each such command.
package gotool

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// Env returns the environment for a go command a test runs: this
// process's, with GOFLAGS set to the go command's own (the
// environment's, or else its go env file's), then -race when this
// binary has the race detector, then extra.
func Env(extra ...string) ([]string, error) {
	out, err := exec.Command("go", "env", "GOFLAGS").Output()
	if err != nil {
		return nil, fmt.Errorf("go env GOFLAGS: %w", err)
	}
	flags := strings.Fields(string(out))
	if RaceEnabled {
		flags = append(flags, "-race")
	}
	flags = append(flags, extra...)
	return append(os.Environ(), "GOFLAGS="+strings.Join(flags, " ")), nil
}
