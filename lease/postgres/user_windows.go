//go:build windows

package pglease

import (
	"os"
	"path/filepath"

	"github.com/fencecheck/fencecheck/internal/spawn"
)

// serverUser is fencecheck's own user: on Windows PostgreSQL's refusal of
// root does not arise, and children cannot be started as another user.
func serverUser() (*spawn.Credential, error) { return nil, nil }

// dataDir makes the empty folder the cluster's data goes in, dir/data,
// and returns it twice: it is also the folder to delete at the end.
func dataDir(dir string, _ *spawn.Credential) (data, remove string, err error) {
	data = filepath.Join(dir, "data")
	if err := os.Mkdir(data, 0o700); err != nil {
		return "", "", err
	}
	return data, data, nil
}
