//go:build !windows

package pglease

import (
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"

	"github.com/fencecheck/fencecheck/internal/spawn"
)

// serverUser is the user a private cluster runs as: fencecheck's own
// (nil), unless fencecheck runs as root, which initdb and postgres
// refuse; then the postgres system user, which the PostgreSQL packages
// create. The error says what to do when there is none.
func serverUser() (*spawn.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("PostgreSQL refuses to run as root, and fencecheck runs as root with no postgres user to run the cluster as (%w): "+
			"run fencecheck as another user, or create the user (useradd --system postgres)", err)
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err := errors.Join(err1, err2); err != nil {
		return nil, fmt.Errorf("the postgres user's ids: %w", err)
	}
	cred := &spawn.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	if gids, err := u.GroupIds(); err == nil {
		for _, g := range gids {
			if n, err := strconv.ParseUint(g, 10, 32); err == nil {
				cred.Groups = append(cred.Groups, uint32(n))
			}
		}
	}
	return cred, nil
}

// reachable reports whether the user of cred may enter dir: every folder
// from the root down to dir must be searchable by it (as its owner, its
// group, or anyone). A run directory under a home folder only root may
// enter (mode 0700) is not.
func reachable(dir string, cred *spawn.Credential) bool {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return false
	}
	groups := append([]uint32{cred.Gid}, cred.Groups...)
	for {
		info, err := os.Stat(dir)
		if err != nil {
			return false
		}
		st, ok := info.Sys().(*syscall.Stat_t)
		perm := info.Mode().Perm()
		if !ok || !(perm&0o001 != 0 || st.Uid == cred.Uid && perm&0o100 != 0 || slices.Contains(groups, st.Gid) && perm&0o010 != 0) {
			return false
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return true
		}
		dir = parent
	}
}

// dataDir makes the empty folder the cluster's data goes in, owned by the
// user the cluster runs as (cred; nil: fencecheck's own), and returns it
// with the folder to delete at the end. The data goes in dir/data, unless
// that user cannot reach dir: then in a fresh folder under the system's
// temporary folder, which says so in the error of none.
func dataDir(dir string, cred *spawn.Credential) (data, remove string, err error) {
	switch {
	case cred == nil || reachable(dir, cred):
		data = filepath.Join(dir, "data")
		remove = data
	case reachable(os.TempDir(), cred):
		tmp, err := os.MkdirTemp("", "fencecheck-postgres-")
		if err != nil {
			return "", "", err
		}
		data, remove = filepath.Join(tmp, "data"), tmp
	default:
		return "", "", fmt.Errorf("the postgres user (uid %d), which runs the cluster because PostgreSQL refuses root, can reach neither %s nor %s: "+
			"let it search the run directory's parents (chmod o+x), or run fencecheck as another user", cred.Uid, dir, os.TempDir())
	}
	if err := os.Mkdir(data, 0o700); err != nil {
		_ = os.RemoveAll(remove)
		return "", "", err
	}
	if cred != nil {
		for _, d := range []string{data, remove} {
			if err := os.Chown(d, int(cred.Uid), int(cred.Gid)); err != nil {
				_ = os.RemoveAll(remove)
				return "", "", err
			}
		}
	}
	return data, remove, nil
}
