package fencetest

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"al.essio.dev/pkg/shellescape"
)

// SeedFlag is the test flag that replaces the seed of every Run and
// Handler of the test binary: go test -run '^TestX$' ./pkg
// -fencetest.seed=N runs TestX again with seed N. It is the line a failing
// test prints (harness.Config.Command).
const SeedFlag = "fencetest.seed"

// seed is -fencetest.seed; it means something only when it was given.
var seed = flag.Uint64(SeedFlag, 0, "seed of every fencetest run, replacing the test's own (a failing test prints the go test line that gives it)")

// seedOverride returns the seed -fencetest.seed gives, if it was given.
func seedOverride() (uint64, bool) {
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == SeedFlag })
	return *seed, given
}

// reproduceLine is the go test command that runs the named test again
// with seed: the same test, so the same Options, and -fencetest.seed (a
// deterministic or synctest run then repeats its history byte for byte).
func reproduceLine(test string, seed uint64) string {
	parts := strings.Split(test, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return fmt.Sprintf("go test -run %s %s -%s=%d", shellescape.Quote(strings.Join(parts, "/")), shellescape.Quote(packageDir()), SeedFlag, seed)
}

// packageDir is the test's package as go test names it, relative to its
// module (go test runs a package's tests in its directory); "." when the
// module cannot be found.
func packageDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			rel, err := filepath.Rel(dir, wd)
			if err != nil || rel == "." {
				return "."
			}
			return "./" + filepath.ToSlash(rel)
		}
		if filepath.Dir(dir) == dir {
			return "."
		}
	}
}
