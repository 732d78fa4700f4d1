package pglease

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// versionDirs is where Debian and Ubuntu install each PostgreSQL major
// version's programs.
const versionDirs = "/usr/lib/postgresql/*/bin"

// binaries finds initdb and postgres of one PostgreSQL installation: in
// the folder `pg_config --bindir` names, else in the newest
// /usr/lib/postgresql/*/bin, else beside the initdb on $PATH (its
// symbolic links resolved: Debian links only some programs into
// /usr/bin). The error says where it looked.
func binaries(ctx context.Context) (initdb, postgres string, err error) {
	var dirs []string
	if pgConfig, err := exec.LookPath("pg_config"); err == nil {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		out, err := exec.CommandContext(ctx, pgConfig, "--bindir").Output()
		cancel()
		if err == nil {
			dirs = append(dirs, strings.TrimSpace(string(out)))
		}
	}
	versions, _ := filepath.Glob(versionDirs)
	slices.SortFunc(versions, func(a, b string) int { return majorOf(b) - majorOf(a) })
	dirs = append(dirs, versions...)
	if path, err := exec.LookPath("initdb"); err == nil {
		if real, err := filepath.EvalSymlinks(path); err == nil {
			path = real
		}
		dirs = append(dirs, filepath.Dir(path))
	}
	for _, dir := range dirs {
		initdb, postgres = filepath.Join(dir, "initdb"), filepath.Join(dir, "postgres")
		if executable(initdb) && executable(postgres) {
			return initdb, postgres, nil
		}
	}
	return "", "", errors.New("no initdb and postgres programs found (looked in `pg_config --bindir`, " + versionDirs +
		" and beside the initdb on $PATH): install PostgreSQL's server (Debian: the postgresql package), or give a server's address (postgres://…)")
}

// majorOf is the major version of a /usr/lib/postgresql/N/bin folder, 0
// when it names none.
func majorOf(dir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return n
}

func executable(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.Mode().IsRegular() && info.Mode().Perm()&0o111 != 0
}
